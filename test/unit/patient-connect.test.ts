import { connectPatiently } from '../../core/patient-connect';
import { recordingLog } from '../support/recording-log';

describe('connecting to Temporal at start', () => {
  it('waits for a server that answers after a few refusals, saying why each time', async () => {
    const log = recordingLog();
    let attempts = 0;
    const connection = await connectPatiently(
      'api',
      async () => {
        attempts += 1;
        if (attempts < 3) throw new Error('Failed to connect before the deadline');
        return 'connected';
      },
      log,
      10_000,
    );
    expect(connection).toBe('connected');
    expect(attempts).toBe(3);
    expect(log.at('warn')).toEqual([
      'api: Temporal did not answer (Failed to connect before the deadline); trying again in 250 ms',
      'api: Temporal did not answer (Failed to connect before the deadline); trying again in 500 ms',
    ]);
  });

  it('gives up once its patience is spent, with the last failure', async () => {
    const log = recordingLog();
    let attempts = 0;
    const startedAt = Date.now();
    await expect(
      connectPatiently(
        'worker',
        async () => {
          attempts += 1;
          throw new Error(`refused ${attempts}`);
        },
        log,
        // Attempts at 0, 250 and 750 ms; after the third, a pause of 1 s would end past its patience.
        // Up to 1 s of a loaded machine's late timers changes none of that.
        1_750,
      ),
    ).rejects.toThrow('refused 3');
    // Its patience and not much more: a loaded machine's timers run late, never by 8 s.
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    expect(attempts).toBe(3);
    expect(log.at('warn')).toHaveLength(2);
  });
});
