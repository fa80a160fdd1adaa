import pg from 'pg';
import { createPublicClient, http, parseEther, parseUnits } from 'viem';
import type { Address, Hex } from 'viem';
import { openOrm } from '../../../db/orm';
import { findSuccessfulNotPosted, findUnsuccessfulNotVoided } from '../../../db/queries/reconciliation.queries';
import { createTestPartner } from '../../support/fixtures';
import type { TestPartner } from '../../support/fixtures';
import { checkLedger, describeLedgerCheck, ledgerProblemCount } from '../../support/ledger-check';
import { describePayments, readUtxoPayments } from '../../support/utxo-payments';
import type { RegtestNetwork, UtxoPayments } from '../../support/utxo-payments';
import type { OperationRecord, StatusCounts } from './load';

/**
 * What the campaign checks after each fault, against the database and through the API:
 * every accepted operation reached a final state, no money moved for an operation nobody was
 * answered about (a doubled operation), no hold is left on a finished operation, the ledger check
 * is clean, the API answered only 2xx, 4xx or 503, and on the chains' nodes each SUCCESSFUL
 * withdrawal was paid once, exactly its amount, and no other of the partner's withdrawals at all.
 */

const OPEN_STATUSES = ['IN_PROGRESS', 'IN_PROGRESS_TR_DATA'];

/** A partner of its own per phase, funded far beyond what the load spends (btc and ltc within what their hot wallets hold: 60 each). */
export async function createFundedPartner(databaseUrl: string): Promise<TestPartner> {
  const orm = await openOrm(databaseUrl, 2);
  try {
    return await createTestPartner(orm, { deposits: { btc: '5', ltc: '10', pol: '1000', eur: '10000000' } });
  } finally {
    await orm.close(true);
  }
}

export interface PhaseRow {
  fault: string;
  accepted: number;
  final: number;
  doubled: number;
  orphanHolds: number;
  ledger: string;
  statuses: string;
  result: string;
  passed: boolean;
}

interface OperationRow {
  operation: string;
  id: string;
  status: string;
  transfer_state: string | null;
}

async function operationsOf(pool: pg.Pool, partnerId: string): Promise<OperationRow[]> {
  const result = await pool.query<OperationRow>(
    `select o.operation, o.id, o.status, t.state as transfer_state
       from (select 'crypto-withdrawal' as operation, id, status, partner_id from crypto_withdrawal
             union all select 'sepa-transfer', id, status, partner_id from sepa_transfer
             union all select 'exchange', id, status, partner_id from exchange) o
       left join ledger_transfer t on t.id = o.id
      where o.partner_id = $1`,
    [partnerId],
  );
  return result.rows;
}

/** Waits until none of the partner's operations is open any more (or the time is up); returns them. */
export async function awaitFinalStates(databaseUrl: string, partnerId: string, timeoutMs: number): Promise<OperationRow[]> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let rows: OperationRow[] | undefined;
      try {
        rows = await operationsOf(pool, partnerId);
      } catch {
        // The database may still be recovering.
      }
      if (rows && (rows.every((row) => !OPEN_STATUSES.includes(row.status)) || Date.now() >= deadline)) return rows;
      if (!rows && Date.now() >= deadline) throw new Error('the database did not answer');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await pool.end();
  }
}

/** A withdrawal's status as the API reports it (GET /v1/crypto-withdrawal/details/:id), from any API that answers. */
async function withdrawalStatusFromApi(apiUrls: readonly string[], apiKey: string, withdrawalId: string): Promise<string | undefined> {
  for (const url of apiUrls) {
    try {
      const response = await fetch(`${url}/v1/crypto-withdrawal/details/${withdrawalId}`, {
        headers: { authorization: `Bearer ${apiKey}` },
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await response.json()) as { status?: string };
      if (response.status === 200) return body.status;
    } catch {
      // try the next API
    }
  }
  return undefined;
}

export interface PhaseInput {
  fault: string;
  databaseUrl: string;
  apiUrls: readonly string[];
  partner: TestPartner;
  records: readonly OperationRecord[];
  statuses: StatusCounts;
  /** How long operations may take to finish after the load stopped. */
  settleTimeoutMs: number;
  /** Further findings that fail the phase (e.g. a baseline's "served by one API only"). */
  extraProblems?: string[];
  /** The nodes btc and ltc withdrawals are paid on, and their hot wallets' keys. */
  utxo: Record<RegtestNetwork, { rpcUrl: string; hotWalletKey: string }>;
  /** The node pol withdrawals are paid on. */
  polygon: { rpcUrl: string };
}

export interface PhaseVerdict extends PhaseRow {
  problems: string[];
  operations: OperationRow[];
}

export async function verifyPhase(input: PhaseInput): Promise<PhaseVerdict> {
  const problems: string[] = [...(input.extraProblems ?? [])];
  const accepted = input.records.filter((record) => typeof record.status === 'number' && record.status < 300 && record.operationId);
  const acceptedIds = new Set(accepted.map((record) => record.operationId!));
  const gaveUp = input.records.filter((record) => record.status === 'gave-up');
  if (gaveUp.length > 0) problems.push(`${gaveUp.length} keys never got an answer other than 503 or a connection error`);
  if (accepted.length === 0) problems.push('no operation was accepted');
  if (acceptedIds.size !== accepted.length) problems.push('two keys were answered with the same operation');

  const operations = await awaitFinalStates(input.databaseUrl, input.partner.partnerId, input.settleTimeoutMs);
  const byId = new Map(operations.map((row) => [row.id, row]));
  const open = operations.filter((row) => OPEN_STATUSES.includes(row.status));
  if (open.length > 0)
    problems.push(
      `${open.length} operations still open: ${open
        .slice(0, 5)
        .map((row) => `${row.operation} ${row.id} ${row.status}`)
        .join(', ')}`,
    );

  // Reached a final state: in the database, and for withdrawals also as the API reports it.
  let final = 0;
  for (const record of accepted) {
    const row = byId.get(record.operationId!);
    if (!row) {
      problems.push(`accepted ${record.kind} ${record.operationId} has no record`);
      continue;
    }
    if (OPEN_STATUSES.includes(row.status)) continue;
    if (record.kind === 'crypto-withdrawal') {
      const status = await withdrawalStatusFromApi(input.apiUrls, input.partner.apiKey, record.operationId!);
      if (status !== row.status) {
        problems.push(`withdrawal ${record.operationId}: the API says ${status}, the database ${row.status}`);
        continue;
      }
    }
    final += 1;
  }
  const unsuccessful = accepted.filter((record) => byId.get(record.operationId!)?.status === 'UNSUCCESSFUL');
  if (unsuccessful.length > 0) problems.push(`${unsuccessful.length} accepted operations ended UNSUCCESSFUL`);

  // Doubled: money that moved (posted or still held) for an operation no caller was given, i.e. a
  // second operation for a key, or one for a key whose answer was lost.
  const doubled = operations.filter(
    (row) =>
      !acceptedIds.has(row.id) && (row.status === 'SUCCESSFUL' || row.transfer_state === 'POSTED' || row.transfer_state === 'PENDING'),
  );
  if (doubled.length > 0)
    problems.push(`money moved for operations no caller was answered about: ${doubled.map((row) => row.id).join(', ')}`);

  const pool = new pg.Pool({ connectionString: input.databaseUrl, max: 2 });
  let orphanHolds: number;
  let mismatched: number;
  let bankDuplicates: number;
  let chainDuplicates: number;
  try {
    chainDuplicates = await checkChainPayments(pool, input, problems);
    // Holds left on finished operations of this phase (the ledger check below looks at all of them).
    orphanHolds = operations.filter((row) => row.transfer_state === 'PENDING' && !OPEN_STATUSES.includes(row.status)).length;
    const [notVoided, notPosted] = await Promise.all([findUnsuccessfulNotVoided(pool), findSuccessfulNotPosted(pool)]);
    mismatched = notVoided.length + notPosted.length;
    if (mismatched > 0) problems.push(`operations whose transfer disagrees: ${JSON.stringify([...notVoided, ...notPosted].slice(0, 5))}`);
    // The simulated bank got each transfer at most once, and only transfers a caller was answered about.
    const hasBankTable =
      (await pool.query(`select to_regclass('simulated_bank_payment') is not null as present`)).rows[0]?.present === true;
    const bank = hasBankTable
      ? await pool.query<{ transfer_id: string }>(
          `select b.transfer_id from simulated_bank_payment b join sepa_transfer s on s.id::text = b.transfer_id where s.partner_id = $1`,
          [input.partner.partnerId],
        )
      : { rows: [] };
    bankDuplicates = bank.rows.filter((row) => !acceptedIds.has(row.transfer_id)).length;
    if (bankDuplicates > 0) problems.push(`${bankDuplicates} payments reached the bank for transfers no caller was answered about`);
  } finally {
    await pool.end();
  }
  if (orphanHolds > 0) problems.push(`${orphanHolds} holds left on finished operations`);

  const ledger = await checkLedger(input.databaseUrl);
  const ledgerProblems = ledgerProblemCount(ledger) + mismatched;
  if (ledgerProblemCount(ledger) > 0) problems.push(`ledger check: ${describeLedgerCheck(ledger)}`);

  const unexpected = input.statuses.unexpected();
  if (unexpected > 0) problems.push(`${unexpected} answers were 5xx other than 503`);

  const passed = problems.length === 0;
  return {
    fault: input.fault,
    accepted: accepted.length,
    final,
    doubled: doubled.length + bankDuplicates + chainDuplicates,
    orphanHolds: orphanHolds + ledger.unexplainedHolds.length,
    ledger: ledgerProblems === 0 ? `clean (${ledger.transfers} transfers)` : `${ledgerProblems} findings`,
    statuses: input.statuses.toString(),
    result: passed ? 'PASS' : `FAIL: ${problems[0]}`,
    passed,
    problems,
    operations,
  };
}

interface WithdrawalRow {
  id: string;
  network: string;
  destination: string;
  amount: string;
  status: string;
  transaction_hash: string | null;
}

/**
 * The partner's withdrawals against what the chains show paid to their destinations (each a fresh address): a SUCCESSFUL
 * one exactly once, its amount, with the transaction it shows; any other not at all. bitcoin and litecoin are read from
 * their nodes' blocks and mempools, polygon from the destination's balance and the transaction's receipt on its node. Returns how many were paid
 * more than once or without succeeding.
 */
async function checkChainPayments(pool: pg.Pool, input: PhaseInput, problems: string[]): Promise<number> {
  const { rows } = await pool.query<WithdrawalRow>(
    `select id, network, destination, amount::text, status, transaction_hash from crypto_withdrawal where partner_id = $1`,
    [input.partner.partnerId],
  );
  const utxo = {} as Record<RegtestNetwork, UtxoPayments>;
  for (const [network, node] of Object.entries(input.utxo) as Array<[RegtestNetwork, { rpcUrl: string; hotWalletKey: string }]>)
    utxo[network] = await readUtxoPayments(network, node.rpcUrl, node.hotWalletKey);
  const polygon = createPublicClient({ transport: http(input.polygon.rpcUrl), cacheTime: 0 });
  let wrong = 0;
  for (const withdrawal of rows) {
    const name = `${withdrawal.network} withdrawal ${withdrawal.id} (${withdrawal.status})`;
    const succeeded = withdrawal.status === 'SUCCESSFUL';
    // Still open (reported above): its transaction may be on its way, but never two.
    const open = OPEN_STATUSES.includes(withdrawal.status);
    if (withdrawal.network === 'bitcoin' || withdrawal.network === 'litecoin') {
      const payments = utxo[withdrawal.network].byDestination.get(withdrawal.destination) ?? [];
      const [payment] = payments;
      const meant = parseUnits(withdrawal.amount, 8);
      if (payments.length > (succeeded || open ? 1 : 0)) wrong += 1;
      if (open) {
        if (payments.length > 1) problems.push(`${name} was paid twice: ${describePayments(payments)}`);
      } else if (!succeeded) {
        if (payments.length > 0) problems.push(`${name} was paid on chain: ${describePayments(payments)}`);
      } else if (payments.length !== 1 || payment!.height === undefined) {
        problems.push(`${name} has ${payments.length} payment(s) to ${withdrawal.destination}: ${describePayments(payments)}`);
      } else if (payment!.satoshis !== meant) {
        problems.push(`${name}: ${describePayments(payments)} paid, ${withdrawal.amount} asked`);
      } else if (payment!.txid !== withdrawal.transaction_hash) {
        problems.push(`${name} shows transaction ${withdrawal.transaction_hash}, the chain has ${payment!.txid}`);
      }
    } else if (withdrawal.network === 'polygon') {
      const held = await polygon.getBalance({ address: withdrawal.destination as Address });
      const meant = succeeded ? parseEther(withdrawal.amount) : 0n;
      if (open) {
        if (held > parseEther(withdrawal.amount)) {
          wrong += 1;
          problems.push(`${name}: ${withdrawal.destination} holds ${held} wei, more than its amount`);
        }
      } else if (held !== meant) {
        if (held > meant) wrong += 1;
        problems.push(`${name}: ${withdrawal.destination} holds ${held} wei, ${meant} meant`);
      } else if (succeeded) {
        const receipt = await polygon.getTransactionReceipt({ hash: withdrawal.transaction_hash as Hex }).catch(() => undefined);
        if (receipt?.status !== 'success' || receipt.to?.toLowerCase() !== withdrawal.destination.toLowerCase())
          problems.push(`${name} shows transaction ${withdrawal.transaction_hash}, which did not pay ${withdrawal.destination}`);
      }
    }
  }
  return wrong;
}

const COLUMNS: ReadonlyArray<[keyof PhaseRow, string]> = [
  ['fault', 'injected fault'],
  ['accepted', 'operations accepted'],
  ['final', 'reached final state'],
  ['doubled', 'doubled'],
  ['orphanHolds', 'orphan holds'],
  ['ledger', 'ledger check'],
  ['statuses', 'HTTP statuses seen (counts)'],
  ['result', 'result'],
];

/** A Markdown table, so it reads in a terminal and pastes into docs/testing.md. */
export function formatTable(rows: readonly PhaseRow[]): string {
  const cells = rows.map((row) => COLUMNS.map(([key]) => String(row[key]).replace(/\|/g, '/')));
  const header = COLUMNS.map(([, title]) => title);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => line[column]!.length)));
  const line = (values: readonly string[]) => `| ${values.map((value, column) => value.padEnd(widths[column]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}
