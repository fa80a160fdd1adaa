import { DomainError } from '../../core/errors';
import {
  BACKLOG_READ_INTERVAL_MS,
  BACKLOG_READING_TTL_MS,
  STARTS_HALF_LIFE_MS,
  backlogAgeBoundMs,
  createAdmission,
} from '../../operations/temporal/admission';
import type { Backlog } from '../../operations/temporal/admission';
import { recordingLog } from '../support/recording-log';

/** An admission over a backlog the test sets, on a clock the test moves. */
function setUp(responseTimeoutMs = 15_000) {
  let clock = 0;
  let backlog: Backlog | Error = { ageMs: 0, count: 0 };
  let reads = 0;
  const log = recordingLog();
  const admission = createAdmission({
    readBacklog: async () => {
      reads += 1;
      if (backlog instanceof Error) throw backlog;
      return backlog;
    },
    responseTimeoutMs,
    maxInFlightPerPartner: 3,
    log,
    now: () => clock,
  });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    admission,
    log,
    reads: () => reads,
    set: (next: Backlog | Error) => (backlog = next),
    advance: (ms: number) => (clock += ms),
    /** admit(), then let the read it started finish, as the next request would find it. */
    async admitAndRead(): Promise<'admitted' | 'refused'> {
      const outcome = attempt(() => admission.admit('partner-a').release());
      await settle();
      return outcome;
    },
  };
}

function attempt(admit: () => void): 'admitted' | 'refused' {
  try {
    admit();
    return 'admitted';
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('service-unavailable');
    expect((error as DomainError).detail).toMatch(/nothing was moved/);
    return 'refused';
  }
}

describe('admission of new operations by the workflow task queue backlog', () => {
  it('bounds the backlog age at a third of the answer deadline, never below Temporal’s 5 s cache of it', () => {
    expect(backlogAgeBoundMs(30_000)).toBe(10_000);
    expect(backlogAgeBoundMs(15_000)).toBe(5_000);
    expect(backlogAgeBoundMs(1_500)).toBe(5_000);
  });

  it('admits while the backlog is young, refuses once it is older than the bound, and admits again when it drains', async () => {
    const run = setUp(30_000);
    expect(await run.admitAndRead()).toBe('admitted');
    run.set({ ageMs: 9_000, count: 40 });
    run.advance(BACKLOG_READ_INTERVAL_MS);
    expect(await run.admitAndRead()).toBe('admitted');
    run.set({ ageMs: 12_000, count: 400 });
    run.advance(BACKLOG_READ_INTERVAL_MS);
    // The request that starts a read is decided on the reading before it (none waits for a read).
    expect(await run.admitAndRead()).toBe('admitted');
    expect(await run.admitAndRead()).toBe('refused');
    expect(await run.admitAndRead()).toBe('refused');
    expect(run.log.lines.filter((line) => line.startsWith('warn admission: refusing'))).toHaveLength(1);
    run.set({ ageMs: 0, count: 0 });
    run.advance(BACKLOG_READ_INTERVAL_MS);
    await run.admitAndRead();
    expect(await run.admitAndRead()).toBe('admitted');
    expect(run.log.lines.filter((line) => line.startsWith('info admission: the workflow task queue caught up'))).toHaveLength(1);
  });

  it('reads the backlog at most once a second, however many requests come in', async () => {
    const run = setUp();
    for (let i = 0; i < 50; i += 1) await run.admitAndRead();
    expect(run.reads()).toBe(1);
    run.advance(BACKLOG_READ_INTERVAL_MS - 1);
    await run.admitAndRead();
    expect(run.reads()).toBe(1);
    run.advance(1);
    await run.admitAndRead();
    expect(run.reads()).toBe(2);
  });

  it('admits when the backlog cannot be read (an unreachable Temporal is the bounded wait’s to answer)', async () => {
    const run = setUp();
    run.set({ ageMs: 60_000, count: 1000 });
    await run.admitAndRead();
    expect(await run.admitAndRead()).toBe('refused');
    run.set(new Error('14 UNAVAILABLE: connection refused'));
    run.advance(BACKLOG_READ_INTERVAL_MS);
    await run.admitAndRead();
    expect(await run.admitAndRead()).toBe('admitted');
    run.advance(BACKLOG_READ_INTERVAL_MS);
    await run.admitAndRead();
    expect(run.reads()).toBe(3);
    // Said once per run of failures, not once a second.
    expect(run.log.lines.filter((line) => line.startsWith('warn admission: the task queue'))).toHaveLength(1);
  });

  it('does not refuse on a reading older than its time to live (no request came for a while)', async () => {
    const run = setUp();
    run.set({ ageMs: 60_000, count: 1000 });
    await run.admitAndRead();
    expect(await run.admitAndRead()).toBe('refused');
    run.advance(BACKLOG_READING_TTL_MS + 1);
    // This request starts a fresh read but is decided now: the old reading no longer counts.
    run.set({ ageMs: 0, count: 0 });
    expect(attempt(() => run.admission.admit('partner-a').release())).toBe('admitted');
  });

  it('refuses, while behind, the partners at or above their share of what this process started lately, not a lighter one', async () => {
    const run = setUp(15_000);
    const start = (partnerId: string) => {
      const ticket = run.admission.admit(partnerId);
      ticket.started();
      ticket.release();
    };
    for (let i = 0; i < 30; i += 1) start('flooder');
    start('steady');
    await run.admitAndRead();
    run.set({ ageMs: 6_000, count: 300 });
    run.advance(BACKLOG_READ_INTERVAL_MS);
    await run.admitAndRead();
    expect(attempt(() => run.admission.admit('flooder'))).toBe('refused');
    // One start against the mean of 15.5: admitted; a partner with none at all too.
    expect(attempt(() => run.admission.admit('steady').release())).toBe('admitted');
    expect(attempt(() => run.admission.admit('newcomer').release())).toBe('admitted');
    // Starts fade: after a few half-lives the flooder counts about as little as the steady partner's new starts.
    run.advance(5 * STARTS_HALF_LIFE_MS);
    for (let i = 0; i < 3; i += 1) start('steady');
    await run.admitAndRead();
    run.set({ ageMs: 6_000, count: 300 });
    run.advance(BACKLOG_READ_INTERVAL_MS);
    await run.admitAndRead();
    expect(attempt(() => run.admission.admit('flooder').release())).toBe('admitted');
    expect(attempt(() => run.admission.admit('steady'))).toBe('refused');
  });

  it('refuses every partner once the oldest task is as old as the whole answer deadline', async () => {
    const run = setUp(15_000);
    for (let i = 0; i < 10; i += 1) {
      const ticket = run.admission.admit('flooder');
      ticket.started();
      ticket.release();
    }
    await run.admitAndRead();
    run.set({ ageMs: 15_000, count: 3000 });
    run.advance(BACKLOG_READ_INTERVAL_MS);
    await run.admitAndRead();
    expect(attempt(() => run.admission.admit('newcomer'))).toBe('refused');
  });

  it("bounds a partner's operations in flight (429), others unaffected; a release frees its place, once", async () => {
    const run = setUp();
    const tickets = [run.admission.admit('busy'), run.admission.admit('busy'), run.admission.admit('busy')];
    let refusal: unknown;
    try {
      run.admission.admit('busy');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DomainError);
    expect((refusal as DomainError).kind).toBe('too-many-operations');
    expect((refusal as DomainError).detail).toBe(
      'this partner already has 3 operations waiting for their answer here, the most it may: wait for one to be answered; nothing was moved',
    );
    expect(() => run.admission.admit('other').release()).not.toThrow();
    tickets[0]!.release();
    tickets[0]!.release();
    const again = run.admission.admit('busy');
    expect(() => run.admission.admit('busy')).toThrow(DomainError);
    again.release();
  });
});
