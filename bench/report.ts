import fs from 'node:fs';
import path from 'node:path';

/** The goal for a row: the ratio at least (throughput) or at most (latency) this. */
export interface Goal {
  direction: 'at-least' | 'at-most';
  ratio: number;
}

/**
 * One line of the table. `ratio` is project ÷ ceiling of the row's figure: for a throughput
 * higher is better (goal at least), for a latency lower is better (goal at most).
 */
export interface ReportRow {
  scenario: string;
  figure: string;
  ceiling: string;
  ratio: number | null;
  /** The project side's latencies. */
  p50Ms: number | null;
  p99Ms: number | null;
  goal: Goal | null;
  met: boolean | null;
}

export function reportRow(fields: Omit<ReportRow, 'met'>): ReportRow {
  const { ratio, goal } = fields;
  const met =
    goal === null || ratio === null || !Number.isFinite(ratio)
      ? null
      : goal.direction === 'at-least'
        ? ratio >= goal.ratio
        : ratio <= goal.ratio;
  return { ...fields, met };
}

export const atLeast = (ratio: number): Goal => ({ direction: 'at-least', ratio });
export const atMost = (ratio: number): Goal => ({ direction: 'at-most', ratio });

export function perSecond(value: number, unit: string): string {
  return `${value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1)} ${unit}/s`;
}

export function milliseconds(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return '–';
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value >= 10 ? Math.round(value) : value.toFixed(1)} ms`;
}

export function megabytes(bytes: number | null): string {
  return bytes === null ? '–' : `${Math.round(bytes / (1024 * 1024))} MB`;
}

/** A Markdown table: readable in a terminal, pasted as is into docs/benchmarks.md. */
export function formatTable(rows: readonly ReportRow[]): string {
  const header = ['scenario', 'this service', 'ceiling, same run', 'ratio', 'p50', 'p99', 'goal', 'met'];
  const cells = rows.map((row) => [
    row.scenario,
    row.figure,
    row.ceiling,
    row.ratio === null || !Number.isFinite(row.ratio) ? '–' : row.ratio.toFixed(2),
    milliseconds(row.p50Ms),
    milliseconds(row.p99Ms),
    row.goal === null ? '–' : `${row.goal.direction === 'at-least' ? '≥' : '≤'} ${row.goal.ratio.toFixed(2)}`,
    row.met === null ? '–' : row.met ? 'yes' : 'no',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => (line[column] ?? '').length)));
  const line = (values: readonly string[]) => `| ${values.map((value, column) => value.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)].join('\n');
}

export function writeJson(file: string, payload: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(payload, null, 2)}\n`);
}
