/**
 * What the bench has started, stopped in reverse order at the end, on an error or on Ctrl-C.
 * A stop requested while a step is under way aborts the step's waits (through `signal`); the
 * run then unwinds to its `finally`, which stops everything started so far.
 */
export class Lifecycle {
  private readonly stops: Array<{ name: string; stop(): Promise<void>; kill?: () => void }> = [];
  private readonly controller = new AbortController();

  /** Aborted once a stop is requested: loads end early, waits give up. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get stopRequested(): boolean {
    return this.controller.signal.aborted;
  }

  /** `kill`, when given, ends the thing at once and synchronously: for an operator who insists. */
  add(name: string, stop: () => Promise<void>, kill?: () => void): void {
    this.stops.push({ name, stop, ...(kill ? { kill } : {}) });
  }

  requestStop(reason: string): void {
    if (!this.controller.signal.aborted) this.controller.abort(new Error(reason));
  }

  /** Throws between steps once a stop was requested, so nothing new starts. */
  checkpoint(): void {
    if (this.controller.signal.aborted) throw new StopRequested();
  }

  /** Kills at once whatever can be killed synchronously (child processes); the rest is left to its own signal handling. */
  killAll(): void {
    for (const step of [...this.stops].reverse()) step.kill?.();
  }

  /** Stops everything in reverse order; a stop that fails is reported and the rest still run. */
  async stopAll(report: (message: string) => void): Promise<void> {
    for (const step of this.stops.splice(0).reverse()) {
      report(`stopping ${step.name}`);
      await step.stop().catch((error: unknown) => report(`stopping ${step.name} failed: ${String(error)}`));
    }
  }
}

export class StopRequested extends Error {
  override readonly name = 'StopRequested';

  constructor() {
    super('stop requested');
  }
}
