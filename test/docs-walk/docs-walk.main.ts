import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SETTING_VARIABLES } from '../../core/settings';
import { walkPlan } from './documented-commands';
import type { RunStep, ServerStep } from './documented-commands';
import { isLoopback, listenersOf, stillListening } from './listeners';
import { WalkedProcess } from './walked-process';

/**
 * `npm run test:docs-walk` (docs/testing.md, "The docs walk"): a new user's first hour, in a clean
 * clone of this commit. It runs the README's quick-start commands and each documented start command
 * as written, with none of this project's settings in the environment, up to their first healthy
 * answer; tries the curl their section shows; checks that everything listens on loopback only and
 * that the clone stays clean; stops each with Ctrl-C and checks that nothing is left running.
 * Exits non-zero, with the command's last output, at the first documented command that does not
 * work.
 */

const ROOT = path.resolve(__dirname, '../..');
/** Up to the first healthy answer: `npm install`, and on a cold machine a Temporal build (about 9 minutes here). */
const READY_WITHIN_MS = 25 * 60_000;
const RUN_WITHIN_MS = 15 * 60_000;
/** The stops wait for Postgres and Temporal to confirm theirs, 15 s each at most. */
const STOPPED_WITHIN_MS = 60_000;

const started: WalkedProcess[] = [];

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-walk-'));
  // Open to other users as a clone in a home folder is: run as root, the embedded Postgres runs as a user of its own.
  fs.chmodSync(work, 0o755);
  const clone = path.join(work, 'clone');
  const head = git(ROOT, 'rev-parse', '--short', 'HEAD');
  if (git(ROOT, 'status', '--porcelain') !== '') say(`note: uncommitted changes are not walked; the clone is of ${head}`);
  git(ROOT, 'clone', '--quiet', ROOT, clone);
  const env = newUserEnvironment();
  const node = execFileSync('node', ['--version'], { env, encoding: 'utf8' }).trim();
  say(`walking ${head} in ${clone} on Node ${node}`);

  for (const step of walkPlan((file) => fs.readFileSync(path.join(clone, file), 'utf8'))) {
    const log = path.join(work, `${started.length + 1}-${step.command.replace(/[^a-z0-9]+/gi, '-')}.log`);
    const began = Date.now();
    if (step.kind === 'skipped') {
      say(`- \`${step.command}\` (${step.source}): not walked: ${step.reason}`);
      continue;
    }
    say(`- \`${step.command}\` (${step.source})`);
    if (step.kind === 'server') await walkServer(step, clone, env, log);
    else await walkRun(step, clone, env, log);
    say(`  ok in ${Math.round((Date.now() - began) / 1000)} s`);
  }
  fs.rmSync(work, { recursive: true, force: true });
  say('docs walk: every documented command worked');
}

async function walkServer(step: ServerStep, clone: string, env: NodeJS.ProcessEnv, log: string): Promise<void> {
  const server = WalkedProcess.start(step.command, clone, env, log);
  started.push(server);
  const fail = (what: string): never => failed(step.command, what, server.tail(), log);
  const key = await server.waitFor(/^Demo API key:\s+(\S+)/m, READY_WITHIN_MS).catch((error: Error) => fail(error.message));
  say(`  ready: it printed its demo key`);

  const dirty = git(clone, 'status', '--porcelain');
  if (dirty !== '') fail(`the clone is not clean after it:\n${dirty}`);

  const listeners = listenersOf(server.livingTree());
  if (listeners.length === 0) fail('nothing it started listens on a TCP port');
  const exposed = listeners.filter(({ address }) => !isLoopback(address));
  if (exposed.length > 0) fail(`it listens beyond loopback: ${exposed.map(({ address, port }) => `${address}:${port}`).join(', ')}`);
  const ports = [...new Set(listeners.map(({ port }) => port))].sort((a, b) => a - b);
  say(`  listening on loopback only: ${ports.join(', ')}`);

  const curl = step.curl.replace('pk_…', key[1] ?? '');
  const answer = tryCurl(curl, clone, env);
  if (answer.status !== '200' || !isBalances(answer.body)) fail(`\`${curl}\` answered ${answer.status}: ${answer.body.slice(0, 500)}`);
  say(`  \`${step.curl}\` answered 200 with the balances`);

  const ui = /^Temporal Web UI:\s+(http\S+)/m.exec(server.output)?.[1];
  if (ui !== undefined) {
    const status = await fetch(ui).then(
      (response) => String(response.status),
      (error: Error) => error.message,
    );
    if (status !== '200') fail(`the Temporal Web UI at ${ui} answered ${status}`);
    say(`  the Temporal Web UI at ${ui} answered 200`);
  }

  const left = await server.stopLikeCtrlC(STOPPED_WITHIN_MS);
  if (left.length > 0) fail(`Ctrl-C left running after ${STOPPED_WITHIN_MS / 1000} s (now killed):\n${left.join('\n')}`);
  const held = stillListening(ports);
  if (held.length > 0) fail(`after Ctrl-C, ports ${held.join(', ')} are still listened on`);
  say('  Ctrl-C stopped everything it started');
}

async function walkRun(step: RunStep, clone: string, env: NodeJS.ProcessEnv, log: string): Promise<void> {
  const run = WalkedProcess.start(step.command, clone, env, log);
  started.push(run);
  const timer = setTimeout(() => run.kill(), RUN_WITHIN_MS);
  const { code, signal } = await run.exited;
  clearTimeout(timer);
  if (code !== 0) failed(step.command, `it exited ${code ?? signal}`, run.tail(), log);
  const dirty = git(clone, 'status', '--porcelain');
  if (dirty !== '') failed(step.command, `the clone is not clean after it:\n${dirty}`, run.tail(), log);
}

/** The documented curl as written, with curl's own options to report the status and keep the body. */
function tryCurl(curl: string, cwd: string, env: NodeJS.ProcessEnv): { status: string; body: string } {
  const bodyFile = path.join(cwd, '..', 'curl-body');
  try {
    const status = execFileSync('bash', ['-c', `${curl} -sS -o '${bodyFile}' -w '%{http_code}'`], { cwd, env, encoding: 'utf8' });
    return { status, body: fs.readFileSync(bodyFile, 'utf8') };
  } catch (error) {
    return { status: 'no answer', body: String((error as { stderr?: string }).stderr ?? error) };
  }
}

function isBalances(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as { fiatBalances?: unknown; cryptoBalances?: unknown };
    return Array.isArray(parsed.fiatBalances) && Array.isArray(parsed.cryptoBalances) && parsed.cryptoBalances.length > 0;
  } catch {
    return false;
  }
}

/** This shell's environment as a new user's: none of the project's settings, none of the outer npm's variables. */
function newUserEnvironment(): NodeJS.ProcessEnv {
  const settings = new Set(SETTING_VARIABLES);
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !settings.has(name) && !/^npm_/i.test(name) && name !== 'INIT_CWD'),
  );
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

function failed(command: string, what: string, tail: string, log: string): never {
  throw new WalkFailure(`\`${command}\`: ${what}\n--- its last output (whole log: ${log}) ---\n${tail}`);
}

class WalkFailure extends Error {}

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function stopAll(): void {
  for (const process of started) process.kill();
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopAll();
    process.exit(130);
  });
}

main().catch((error: Error) => {
  stopAll();
  process.stderr.write(`docs walk failed: ${error instanceof WalkFailure ? error.message : (error.stack ?? error.message)}\n`);
  process.exit(1);
});
