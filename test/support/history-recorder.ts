import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING } from '../../core/payload-codec';
import { commandsOf } from '../../dev/workflow-commands';
import { testTemporalAccess } from './temporal-access';

// Where replay.test.ts has always found it.
export { commandsOf };

/**
 * Recorded workflow histories (test/histories/<workflowType>/<path>.<shape>.json), which
 * test/workflows/replay.test.ts replays against the current workflow code: a change to a
 * workflow's commands that runs already under way cannot follow fails a test, not every in-flight
 * run after a deploy.
 *
 * Recording is on demand (`npm run record-histories` sets RECORD_HISTORIES=1): the workflow tests
 * call recordHistory at the end of a scenario. Every client and worker encrypts payloads with the
 * run's own key, which no later run has, so the history is written decrypted (plaintext payloads,
 * as replay reads them without a codec). The
 * file name ends in a hash of the commands the run made, so a workflow whose commands changed gets
 * a new file beside the old one, which stays and keeps being replayed; re-recording an unchanged
 * path writes nothing.
 */

export const HISTORIES_DIR = path.resolve(__dirname, '..', 'histories');

/** The JSON a recording holds. */
export interface RecordedHistory {
  workflowType: string;
  /** The path through the workflow, e.g. `travel-rule-timed-out`. */
  path: string;
  /** Histories do not carry the id; a workflow (or interceptor) that reads it needs the same one on replay. */
  workflowId: string;
  recordedWith: { sdk: string; commit?: string };
  /** The commands the run made, in order: what replay holds the code to, and what the file name's hash is of. */
  commands: string[];
  /** temporal.api.history.v1.History in its JSON form (History.toJSON()); read back with History.fromObject. */
  history: Record<string, unknown>;
}

const PATH_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export function recordingHistories(): boolean {
  return process.env.RECORD_HISTORIES === '1';
}

/**
 * With RECORD_HISTORIES=1, writes the history of the handle's run (closed: a recording is of a
 * whole path) as `pathName` of its workflow type; otherwise does nothing. For a chain of runs
 * (continue-as-new), pass a handle of the run to record (its runId).
 */
export async function recordHistory(handle: WorkflowHandle, pathName: string): Promise<void> {
  if (!recordingHistories()) return;
  if (!PATH_NAME.test(pathName)) throw new Error(`recordHistory: a path name is kebab-case, not "${pathName}"`);
  const description = await handle.describe();
  if (description.status.name === 'RUNNING') throw new Error(`recordHistory: ${handle.workflowId} is still running; record a closed run`);
  const history = temporal.api.history.v1.History.fromObject(await decrypted(await handle.fetchHistory())).toJSON();
  const commands = commandsOf(history);
  const recorded: RecordedHistory = {
    workflowType: description.type,
    path: pathName,
    workflowId: handle.workflowId,
    recordedWith: recordedWith(),
    commands,
    history,
  };
  const file = path.join(HISTORIES_DIR, description.type, `${pathName}.${shapeOf(commands)}.json`);
  if (fs.existsSync(file)) return; // the same commands are recorded for this path already
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(recorded, null, 2)}\n`);
  // Formatted as `npm run format:check` wants it (the API of prettier 3 is ESM, which jest does not load).
  execFileSync(process.execPath, [require.resolve('prettier/bin/prettier.cjs'), '--write', '--log-level', 'warn', file]);
}

/** The history, every payload the run's key encrypted replaced in place by the payload inside. */
async function decrypted<T extends object>(history: T): Promise<T> {
  const payloadKeys = testTemporalAccess().payloadKeys;
  if (!payloadKeys) return history;
  const codec = new AesGcmPayloadCodec(payloadKeys);
  const isEncrypted = (value: unknown): value is Payload => {
    const encoding = (value as { metadata?: Record<string, unknown> | null } | null)?.metadata?.encoding;
    return encoding instanceof Uint8Array && Buffer.from(encoding).toString('utf8') === ENCRYPTED_ENCODING;
  };
  const walk = async (node: Record<string, unknown>): Promise<void> => {
    for (const [key, child] of Object.entries(node)) {
      if (child === null || typeof child !== 'object' || child instanceof Uint8Array) continue;
      if (isEncrypted(child)) node[key] = (await codec.decode([child]))[0];
      else await walk(child as Record<string, unknown>);
    }
  };
  await walk(history as Record<string, unknown>);
  return history;
}

/** Every recording under test/histories, with its file (relative to it), sorted by file. */
export function readRecordedHistories(): { file: string; recorded: RecordedHistory }[] {
  if (!fs.existsSync(HISTORIES_DIR)) return [];
  return fs
    .readdirSync(HISTORIES_DIR, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({ file, recorded: JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')) as RecordedHistory }));
}

/**
 * A recording's history as the replay worker takes it. Read with @temporalio/proto's History
 * (historyFromJSON of @temporalio/common is broken in this install: two copies of protobufjs).
 */
export function historyOf(recorded: RecordedHistory): temporal.api.history.v1.History {
  return temporal.api.history.v1.History.fromObject(recorded.history);
}

/** A short hash of the commands: the part of a recording's name that changes when its workflow's commands do. */
export function shapeOf(commands: readonly string[]): string {
  return createHash('sha256').update(commands.join('\n')).digest('hex').slice(0, 8);
}

function recordedWith(): RecordedHistory['recordedWith'] {
  const sdk = (JSON.parse(fs.readFileSync(require.resolve('@temporalio/worker/package.json'), 'utf8')) as { version: string }).version;
  try {
    const commit = execFileSync('git', ['describe', '--always', '--dirty'], { cwd: __dirname, encoding: 'utf8' });
    return { sdk: `@temporalio/worker ${sdk}`, commit: commit.trim() };
  } catch {
    return { sdk: `@temporalio/worker ${sdk}` };
  }
}
