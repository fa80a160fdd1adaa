import type { Anomaly } from './checker/anomalies';
import { percentile } from './checker/availability';
import type { KindRow } from './checker/availability';

/** The run's table per fault kind and its list of anomalies, as Markdown (a terminal reads it, docs/testing.md takes it as is). */

const share = (part: number, whole: number) => (whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)}%`);
const seconds = (ms: number | undefined) => (ms === undefined ? '–' : `${(ms / 1000).toFixed(1)} s`);

export function kindTable(rows: readonly KindRow[]): string {
  const header = [
    'fault kind',
    'injected',
    'operations affected',
    'requests',
    '2xx/4xx',
    '503',
    'no answer',
    'other 5xx',
    'recovery p50 / max',
    'lost',
    'doubled',
    'phantom',
    'stuck',
    'wrong balance',
    'other anomalies',
  ];
  const cells = rows.map((row) => {
    const other = row.anomalies['wrong-state'] + row.anomalies['unexpected-answer'] + row.anomalies.ledger;
    const recovery =
      row.kind === 'none'
        ? '–'
        : `${seconds(percentile(row.recoveryMs, 0.5))} / ${seconds(percentile(row.recoveryMs, 1))}${row.unrecovered ? ` (${row.unrecovered} never)` : ''}`;
    return [
      row.kind === 'none' ? '(no fault active)' : row.kind,
      row.kind === 'none' ? '–' : String(row.injected),
      String(row.operations),
      String(row.attempts),
      share(row.answered, row.attempts),
      share(row.unavailable, row.attempts),
      share(row.noAnswer, row.attempts),
      String(row.serverErrors),
      recovery,
      String(row.anomalies.lost),
      String(row.anomalies.doubled),
      String(row.anomalies.phantom),
      String(row.anomalies.stuck),
      String(row.anomalies['wrong-balance']),
      String(other),
    ];
  });
  return markdownTable(header, cells);
}

export function anomalyList(anomalies: readonly Anomaly[]): string {
  if (anomalies.length === 0) return '0 anomalies';
  const lines = anomalies.map((found) => `- ${found.kind}${found.op !== undefined ? ` (op ${found.op})` : ''}: ${found.detail}`);
  return [`${anomalies.length} anomalies:`, ...lines].join('\n');
}

export function markdownTable(header: readonly string[], cells: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => line[column]!.length)));
  const line = (values: readonly string[]) =>
    `| ${values.map((value, column) => value.replace(/\|/g, '/').padEnd(widths[column]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}
