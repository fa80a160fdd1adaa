import fs from 'node:fs';
import path from 'node:path';

/**
 * The run's whole history as JSON lines, for post-mortems: the run's settings and seed, every
 * request a simulated client or operator sent and every answer it got, every fault's start and
 * end, the soak samples, and the checker's findings. Each line has `t` (ms since the run began)
 * and `type`. Written as it happens (a run cut short still leaves what happened until then).
 */
export class History {
  private readonly fd: number;
  readonly startedAt = Date.now();

  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.fd = fs.openSync(file, 'w');
  }

  /** Milliseconds since the run began: the time axis of every line and of the checker. */
  now(): number {
    return Date.now() - this.startedAt;
  }

  write(type: string, fields: Record<string, unknown>): void {
    // Synchronous: the order of lines is the order things happened in, and nothing is lost on exit.
    fs.writeSync(this.fd, `${JSON.stringify({ t: this.now(), type, ...fields })}\n`);
  }

  close(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      // closed already
    }
  }
}
