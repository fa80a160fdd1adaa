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
        1_000,
      ),
    ).rejects.toThrow('refused 3');
    expect(Date.now() - startedAt).toBeLessThan(1_500);
    expect(attempts).toBe(3);
    expect(log.at('warn')).toHaveLength(2);
  });
});
