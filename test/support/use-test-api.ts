import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { openTestOrm } from './fixtures';
import { startTestApi } from './http';
import type { StartTestApiOptions, TestApi } from './http';
import { temporalClient } from './operations';

export interface TestApiOptions extends StartTestApiOptions {
  /** Connections of the test file's ORM (default 10). */
  poolMax?: number;
  /** False for files that test below HTTP (the ledger, a workflow started directly): no API is started. */
  api?: boolean;
}

export interface TestApiContext {
  /** The run's database, for fixtures and assertions. */
  readonly orm: MikroORM;
  /** The real HTTP API on a free port. */
  readonly api: TestApi;
  /** A Temporal client on the run's namespace. */
  readonly temporal: Client;
  /**
   * Registers a cleanup (a worker, a second API, rows a failed test left open) to run after the
   * file's tests, passed or failed, last registered first, while the ORM and the client are
   * still open.
   */
  defer(cleanup: () => unknown): void;
}

/**
 * The setup every test file on the stack shares: registers a beforeAll that opens an ORM, starts
 * the API and connects a Temporal client, and an afterAll that runs the deferred cleanups and
 * then closes all three, each even if another failed (or never started), and reports the first
 * error. Call it at the top of a test file: `const ctx = useTestApi({ maxBodyBytes: 1024 })`.
 */
export function useTestApi(options: TestApiOptions = {}): TestApiContext {
  const { poolMax, api: withApi = true, ...apiOptions } = options;
  let orm: MikroORM | undefined;
  let api: TestApi | undefined;
  let temporal: { client: Client; close(): Promise<void> } | undefined;
  const cleanups: Array<() => unknown> = [];

  beforeAll(async () => {
    orm = await openTestOrm(poolMax);
    temporal = await temporalClient();
    if (withApi) api = await startTestApi(apiOptions);
  });

  afterAll(async () => {
    const errors: unknown[] = [];
    const attempt = async (step: (() => unknown) | undefined) => {
      try {
        await step?.();
      } catch (error) {
        errors.push(error);
      }
    };
    for (const cleanup of cleanups.splice(0).reverse()) await attempt(cleanup);
    await attempt(api && (() => api!.stop()));
    await attempt(temporal && (() => temporal!.close()));
    await attempt(orm && (() => orm!.close(true)));
    if (errors.length > 0) throw errors[0];
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined)
      throw new Error(
        `useTestApi: ${what} is not available (used outside a test, or its beforeAll failed${what === 'the API' && !withApi ? ', or api: false' : ''})`,
      );
    return value;
  };
  return {
    get orm() {
      return ready(orm, 'the ORM');
    },
    get api() {
      return ready(api, 'the API');
    },
    get temporal() {
      return ready(temporal, 'the Temporal client').client;
    },
    defer(cleanup) {
      cleanups.push(cleanup);
    },
  };
}
