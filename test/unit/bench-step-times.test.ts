import fs from 'node:fs';
import path from 'node:path';
import { largestGaps, stepsOf } from '../../bench/scenarios/step-times';

/**
 * The bench's reading of where a workflow's time goes (bench/scenarios/step-times.ts), on a
 * recorded settled withdrawal: every step it names, in the order they ran, none negative.
 */
const SETTLED = path.resolve(__dirname, '../histories/cryptoWithdrawalWorkflow/settled.04c34424.json');
const history = (JSON.parse(fs.readFileSync(SETTLED, 'utf8')) as { history: Record<string, unknown> }).history;

describe('bench step times', () => {
  const steps = stepsOf(history);

  it('names each workflow task, each activity and each local activity of the run, in order', () => {
    expect(steps.map(({ step }) => step)).toEqual([
      'workflow task 1: queued',
      'workflow task 1: ran, with local reserveWithdrawal',
      'start to early answer',
      'checkTravelRule: queued',
      'checkTravelRule: ran',
      'workflow task 2: queued',
      'workflow task 2: ran, with local markWithdrawalHandOff',
      'broadcastWithdrawal: queued',
      'broadcastWithdrawal: ran',
      'workflow task 3: queued',
      'workflow task 3: ran',
      'pollWithdrawalConfirmation: queued',
      'pollWithdrawalConfirmation: ran',
      'workflow task 4: queued',
      'workflow task 4: ran, with local settleWithdrawal',
      'start to end',
    ]);
  });

  it('measures from the history’s own times: none negative, the early answer before the end', () => {
    const ms = Object.fromEntries(steps.map(({ step, ms }) => [step, ms]));
    for (const { step, ms: value } of steps) expect({ step, nonNegative: value >= 0 }).toEqual({ step, nonNegative: true });
    expect(ms['start to early answer']).toBeLessThan(ms['start to end']!);
    // Event 4 (task 1 completed) minus event 3 (started): 160180315 ns to 317546694 ns of the same second.
    expect(ms['workflow task 1: ran, with local reserveWithdrawal']).toBeCloseTo(157.366, 2);
  });

  it('ranks the steps by how much longer the project took than its ceiling', () => {
    const gaps = largestGaps(
      {
        project: { 'a: ran': 10, 'b: ran': 50, 'c: ran': 5, 'start to end': 100 },
        ceiling: { 'a: ran': 9, 'b: ran': 20, 'c: ran': 6, 'start to end': 40 },
        samples: { project: 1, ceiling: 1 },
      },
      2,
    );
    expect(gaps).toEqual([
      { step: 'b: ran', projectMs: 50, ceilingMs: 20 },
      { step: 'a: ran', projectMs: 10, ceilingMs: 9 },
    ]);
  });
});
