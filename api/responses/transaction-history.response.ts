import type { HistoryRow } from '../../db/queries/history.queries';
import { jsonNumberText, jsonStringText } from '../http/json-text';

/** One history entry as JSON text; `createdAt` to the millisecond, as Date.toISOString writes it. */
export function historyEntryJson(row: HistoryRow): string {
  const from =
    row.amount_from === null ? '' : `,"amountFrom":${jsonNumberText(row.amount_from)},"currencyFrom":${jsonStringText(row.currency_from)}`;
  const withdrawal = row.withdrawal_id === null ? '' : `,"withdrawalId":${jsonStringText(row.withdrawal_id)}`;
  return (
    `{"id":${jsonStringText(row.id)},"createdAt":"${row.created_at_utc.slice(0, 23)}Z","type":${jsonStringText(row.type)},` +
    `"amount":${jsonNumberText(row.amount)},"currency":${jsonStringText(row.currency)}${from},"status":${jsonStringText(row.status)}${withdrawal}}`
  );
}

export function historyJson(rows: readonly HistoryRow[]): string {
  return `[${rows.map(historyEntryJson).join(',')}]`;
}

/**
 * The whole array piece by piece: the first page, then each next one fetched only when the
 * client has read the previous (`nextPage` is given the page before and returns [] at the end).
 */
export async function* historyJsonPieces(
  firstPage: readonly HistoryRow[],
  nextPage: (previous: readonly HistoryRow[]) => Promise<readonly HistoryRow[]>,
): AsyncGenerator<string> {
  let page = firstPage;
  let opening = '[';
  while (page.length > 0) {
    yield opening + page.map(historyEntryJson).join(',');
    opening = ',';
    page = await nextPage(page);
  }
  yield opening === '[' ? '[]' : ']';
}
