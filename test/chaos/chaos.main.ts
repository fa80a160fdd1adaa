/**
 * An hour of chaos (issue 21): `npm run test:chaos -- --minutes N --seed S [--rate R] [--out FILE]`.
 * Starts its own stack (test/chaos/support/chaos-stack.ts: Postgres, Temporal, a Hardhat node, btcd,
 * 2 APIs and 2 workers, every connection through Toxiproxy), an open-loop load of simulated
 * partners and operators, and a nemesis drawn from the seed; then a quiet settle, and a checker
 * that trusts nothing it is testing. Prints a table per fault kind, `0 anomalies` or the list,
 * and the soak's verdicts; writes the whole history as JSON lines; exits 1 on any anomaly, 2 on a
 * usage mistake, 130 on Ctrl-C. Every process it started is stopped, on Ctrl-C too.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../../core/logger';
import { toxiproxyBuildProblem } from '../../dev/toxiproxy-build';
import { killRecordedProcesses } from '../support/processes';
import { ChaosStack } from './support/chaos-stack';
import { availabilityRows } from './support/checker/availability';
import { checkRun } from './support/checker/check';
import { PartnerClient, sleep } from './support/client';
import { ChainDepositor } from './support/deposits';
import { History } from './support/history';
import { OpenLoopLoad } from './support/load';
import { Nemesis } from './support/nemesis';
import { OperatorDesk } from './support/operators';
import { OptionsMistake, defaultHistoryFile, parseChaosOptions, windows } from './support/options';
import { createPartners, quoteNetworkFees } from './support/partners';
import { freshSeed } from './support/random';
import { anomalyList, kindTable } from './support/report';
import { FAULT_KINDS, calmWindows, drawSchedule } from './support/schedule';
import { SoakSampler } from './support/soak';

const ROOT = path.resolve(__dirname, '../..');
const say = (line: string) => process.stderr.write(`${line}\n`);

let stack: ChaosStack | undefined;
/** The stack's folder, known before the stack is up: what a Ctrl-C during the start cleans. */
let stackDir: string | undefined;
let stopping: Promise<void> | undefined;
const interrupters: Array<() => void> = [];

/** Stops everything this run started; a second Ctrl-C while that runs kills what is recorded at once. */
function onSignal(signal: NodeJS.Signals): void {
  if (stopping) {
    if (stackDir) killRecordedProcesses(stackDir);
    process.exit(130);
  }
  say(`\n${signal}: stopping everything the run started`);
  for (const interrupt of interrupters) interrupt();
  stopping = (async () => {
    if (stack) await stack.stop();
    else if (stackDir) {
      // Still starting: whatever was started is recorded in the folder (the chain node dies with this process).
      killRecordedProcesses(stackDir);
      fs.rmSync(stackDir, { recursive: true, force: true });
    }
    process.exit(130);
  })();
}

async function main(): Promise<number> {
  const options = parseChaosOptions(process.argv.slice(2));
  const problem = toxiproxyBuildProblem();
  if (problem) {
    say(`test:chaos cannot run: ${problem}`);
    return 1;
  }
  const seed = options.seed ?? freshSeed();
  const startedAt = new Date();
  const history = new History(options.out ?? defaultHistoryFile(ROOT, seed, startedAt));
  const { totalMs, chaosMs, quietMs } = windows(options.minutes);
  say(
    `chaos: seed ${seed} (replay: npm run test:chaos -- --minutes ${options.minutes} --seed ${seed}), ${options.rate} operations/s, history ${history.file}`,
  );
  const schedule = drawSchedule(seed, chaosMs);
  history.write('run', { seed, minutes: options.minutes, rate: options.rate, totalMs, chaosMs, quietMs, schedule });
  const counts = FAULT_KINDS.map((kind) => `${kind} ${schedule.filter((fault) => fault.spec.kind === kind).length}`).join(', ');
  say(`nemesis: ${schedule.length} faults in ${Math.round(chaosMs / 1000)} s (${counts}), then ${Math.round(quietMs / 1000)} s quiet`);

  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const log = createLogger('chaos', 'warn');
  stackDir = fs.mkdtempSync(path.join(os.tmpdir(), 'partner-payments-chaos-'));
  // The embedded Postgres runs as the 'postgres' user when we are root: it must reach the folder.
  fs.chmodSync(stackDir, 0o755);
  stack = await ChaosStack.start({ seed, log, dir: stackDir });
  say(`stack up in ${Math.round((Date.now() - startedAt.getTime()) / 1000)} s: ${stack.fault.dir}`);
  history.write('stack', {
    dir: stack.fault.dir,
    apis: stack.apiUrls,
    hotWallet: stack.evm.hotWalletAddress,
    usdc: stack.evm.usdcAddress,
    bitcoinHotWallet: stack.bitcoin.hotWalletAddress,
  });

  const client = new PartnerClient(stack.apiUrls, history);
  const partners = await createPartners(stack.fault.databaseUrl, history);
  const fees = await quoteNetworkFees(client, partners[0]!, seed);
  history.write('fees', { fees });
  const operators = new OperatorDesk(stack.fault, history, seed);
  const load = new OpenLoopLoad({
    client,
    partners,
    history,
    seed,
    ratePerSecond: options.rate,
    onAccepted: (operation) => operators.onAccepted(operation),
  });
  const depositor = await ChainDepositor.prepare({ node: stack.evm, client, partners, history, seed });
  const nemesis = new Nemesis(stack, history);
  const soak = new SoakSampler(() => stack!.processes(), history);
  interrupters.push(
    () => nemesis.stop(),
    () => load.stop(),
    () => depositor.stop(),
    () => soak.stop(),
  );

  const loadFrom = history.now();
  soak.start();
  const loadDone = load.run(totalMs);
  const depositsDone = depositor.run(totalMs);
  const nemesisFrom = history.now();
  await nemesis.run(schedule);
  const healProblems = await stack.healEverything();
  history.write('settle', { problems: healProblems });
  say(
    `nemesis done at ${Math.round((history.now() - loadFrom) / 1000)} s; settling${healProblems.length ? ` (${healProblems.join('; ')})` : ''}`,
  );
  await loadDone;
  await depositsDone;
  const loadTo = history.now();
  say(`load stopped: ${load.operations.length} operations sent; waiting for their answers and the operators`);
  await load.drain();
  await operators.drain();
  const retried = await load.retryUnanswered();
  soak.stop();
  if (retried > 0) say(`retried ${retried} keys that had no answer, as a client's reconciliation would`);

  const result = await checkRun({
    stack,
    client,
    history,
    partners,
    fees,
    operations: load.operations,
    operatorRecords: operators.records,
    deposits: depositor.deposits,
  });
  const rows = availabilityRows({
    faults: nemesis.records,
    attempts: client.attempts,
    operations: load.operations,
    anomalies: result.anomalies,
    finalAt: result.view.finalAt,
    loadEndedAt: loadTo,
  });
  // The second half of each calm stretch, and of the quiet settle: the latency probes.
  const probes = [
    ...calmWindows(chaosMs).map((calm) => ({ fromMs: calm.fromMs, toMs: calm.toMs })),
    { fromMs: chaosMs, toMs: totalMs },
  ].map((stretch) => ({ from: nemesisFrom + (stretch.fromMs + stretch.toMs) / 2, to: nemesisFrom + stretch.toMs }));
  const soakVerdicts = soak.verdicts({ from: loadFrom, to: loadTo }, client.attempts, probes);
  const accepted = load.accepted().length;
  const shed = load.operations.filter((operation) => operation.status === 'shed').length;
  const report = [
    '',
    `Chaos run, seed ${seed}: ${options.minutes} min at ${options.rate} operations/s, ${nemesis.records.length} faults, ` +
      `${load.operations.length} operations (${accepted} accepted${shed ? `, ${shed} shed` : ''}), ${client.attempts.length} requests`,
    ...result.lines,
    '',
    kindTable(rows),
    '',
    'Soak:',
    soakVerdicts.table,
    ...soakVerdicts.problems.map((line) => `soak: ${line}`),
    '',
    anomalyList(result.anomalies),
    '',
    `history: ${history.file}`,
  ].join('\n');
  process.stdout.write(`${report}\n`);
  history.write('result', { anomalies: result.anomalies, rows, soak: soakVerdicts, operators: operators.records.length });
  // A failed run keeps the stack's folder (every process's log, Postgres's and Temporal's data) for its post-mortem.
  if (result.anomalies.length > 0) process.env.FAULTS_KEEP_DIR = '1';
  history.close();
  await operators.close();
  return result.anomalies.length === 0 ? 0 : 1;
}

void main()
  .catch((error: unknown) => {
    if (error instanceof OptionsMistake) {
      say(`${error.message}\nusage: npm run test:chaos -- [--minutes N] [--seed S] [--rate R] [--out FILE]`);
      return 2;
    }
    say(`chaos run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  })
  .then(async (code) => {
    if (stopping) return;
    const started = stack;
    stack = undefined;
    await started?.stop();
    // The run's history is kept; give the terminal a moment to flush before exiting.
    await sleep(50);
    process.exit(code);
  });
