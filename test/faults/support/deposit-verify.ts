import pg from 'pg';
import { Decimal } from '../../../core/money';
import type { TestPartner } from '../../support/fixtures';
import type { DepositLoad, SentBankCredit, SentChainDeposit } from './deposit-load';
import type { PhaseRow } from './verify';

/**
 * What the campaign checks of the money that came in during a phase, once it settles: each
 * deposit the chain holds credited exactly once (one live record, SUCCESSFUL, one ledger transfer
 * under its id, of its amount), one below the minimum recorded and never credited, one the chain
 * no longer holds (a reorganisation) never credited; each bank entry reference recorded once,
 * the partner's credited once, the unknown IBAN's held in suspense and, once an operator asked,
 * returned once; and the partner's balances through the API exactly the sum of what was credited.
 */

interface CryptoDepositRow {
  id: string;
  transaction_hash: string;
  currency: string;
  amount: string;
  status: string;
  stage: string;
  partner_id: string;
  transfers: string;
}

interface SepaCreditRow {
  entry_ref: string;
  status: string;
  amount: string;
  partner_id: string | null;
  deposit_transfers: string;
  suspense_transfers: string;
  return_transfers: string;
  returns_at_bank: string;
}

/** One deposit's standing: settled as it must end, credited more than once, or (a finding) what is wrong. */
export interface Standing {
  settled: boolean;
  doubled: boolean;
  problem?: string;
}

export interface DepositVerdict extends PhaseRow {
  problems: string[];
  /** Each deposit's standing, by transaction hash (lower case) or entry reference. */
  standings: ReadonlyMap<string, Standing>;
}

export async function verifyDeposits(input: {
  fault: string;
  load: DepositLoad;
  databaseUrl: string;
  apiUrls: readonly string[];
  partner: TestPartner;
  settleTimeoutMs: number;
  ledger: string;
}): Promise<DepositVerdict> {
  const { load, partner } = input;
  const chain = [...load.chain];
  const bank = load.bank.filter((credit) => credit.deliveries > 0);
  const onChain = new Map<string, boolean>();
  for (const deposit of chain) onChain.set(deposit.hash, await load.onChain(deposit));

  const pool = new pg.Pool({ connectionString: input.databaseUrl, max: 2 });
  let standings: Array<{ key: string; what: string; standing: Standing }> = [];
  let strays: CryptoDepositRow[] = [];
  try {
    const deadline = Date.now() + input.settleTimeoutMs;
    for (;;) {
      try {
        const deposits = await pool.query<CryptoDepositRow>(
          `select d.id, d.transaction_hash, d.currency, trim_scale(d.amount)::text as amount, d.status, d.stage, d.partner_id,
                  (select count(*) from ledger_transfer t where t.id = d.id)::text as transfers
             from crypto_deposit d where d.partner_id = $1`,
          [partner.partnerId],
        );
        const credits = await pool.query<SepaCreditRow>(
          `select c.entry_ref, c.status, c.amount::text, c.partner_id,
                  (select count(*) from ledger_transfer t where t.id = c.deposit_id)::text as deposit_transfers,
                  (select count(*) from ledger_transfer t where t.id = c.suspense_transfer_id)::text as suspense_transfers,
                  (select count(*) from ledger_transfer t where t.id = c.return_id)::text as return_transfers,
                  (select count(*) from simulated_bank_payment b where b.transfer_id = c.return_id::text)::text as returns_at_bank
             from incoming_sepa_credit c where c.entry_ref = any($1::text[])`,
          [bank.map((credit) => credit.entryRef)],
        );
        const sent = new Set(chain.map((deposit) => deposit.hash.toLowerCase()));
        strays = deposits.rows.filter((row) => !sent.has(row.transaction_hash.toLowerCase()));
        standings = [
          ...chain.map((deposit) => ({
            key: deposit.hash.toLowerCase(),
            what: `${deposit.currency} deposit ${deposit.hash}`,
            standing: chainStanding(
              deposit,
              onChain.get(deposit.hash) ?? false,
              deposits.rows.filter((row) => row.transaction_hash.toLowerCase() === deposit.hash.toLowerCase()),
            ),
          })),
          ...bank.map((credit) => ({
            key: credit.entryRef,
            what: `SEPA entry ${credit.entryRef}`,
            standing: bankStanding(
              credit,
              partner.partnerId,
              credits.rows.filter((row) => row.entry_ref === credit.entryRef),
            ),
          })),
        ];
      } catch {
        // The database may still be recovering.
      }
      if ((standings.length > 0 && standings.every(({ standing }) => standing.settled)) || Date.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  } finally {
    await pool.end();
  }

  const problems: string[] = [...load.errors.slice(0, 3).map((error) => `the deposit load failed: ${error}`)];
  if (chain.length === 0 || bank.length === 0)
    problems.push(`deposits made: ${chain.length} on chain, ${bank.length} at the bank; both expected`);
  for (const { what, standing } of standings) if (standing.problem) problems.push(`${what}: ${standing.problem}`);
  if (strays.length > 0) problems.push(`deposits recorded that nobody sent: ${strays.map((row) => row.transaction_hash).join(', ')}`);

  // The balances, through the API: exactly what was credited, each deposit once.
  const expected = {
    eth: sum(chain.filter((deposit) => deposit.currency === 'eth' && creditable(deposit, onChain))),
    usdc: sum(chain.filter((deposit) => deposit.currency === 'usdc' && creditable(deposit, onChain))),
    eur: sum(bank.filter((credit) => credit.matched)),
  };
  const balances = await balancesOf(input.apiUrls, partner.apiKey);
  let unexplained = 0;
  for (const [currency, amount] of Object.entries(expected)) {
    const balance = balances?.[currency];
    if (balance === undefined) {
      problems.push(`the API did not answer the partner's ${currency} balance`);
      continue;
    }
    if (!new Decimal(balance).eq(amount)) {
      problems.push(`the partner's ${currency} balance is ${balance}, the deposits credited sum to ${amount.toString()}`);
      if (new Decimal(balance).gt(amount)) unexplained += 1;
    }
  }

  const settled = standings.filter(({ standing }) => standing.settled).length;
  const doubled = standings.filter(({ standing }) => standing.doubled).length + unexplained;
  const reorganised = chain.filter((deposit) => !onChain.get(deposit.hash)).length;
  const summary =
    `chain: ${chain.filter((deposit) => deposit.currency === 'eth').length} eth + ${chain.filter((deposit) => deposit.currency === 'usdc').length} usdc ` +
    `(${chain.filter((deposit) => deposit.belowMinimum).length} below minimum` +
    (reorganised > 0 ? `, ${reorganised} taken back by reorganisations (${load.reorganisations.readPast} read first)` : '') +
    `); bank: ${bank.length} entries (${bank.filter((credit) => credit.deliveries > 1).length} delivered twice, ` +
    `${bank.filter((credit) => !credit.matched).length} to an unknown IBAN, returned)`;
  const passed = problems.length === 0;
  return {
    fault: `${input.fault}: deposits`,
    accepted: standings.length,
    final: settled,
    doubled,
    orphanHolds: 0,
    ledger: input.ledger,
    statuses: summary,
    result: passed ? 'PASS' : `FAIL: ${problems[0]}`,
    passed,
    problems,
    standings: new Map(standings.map(({ key, standing }) => [key, standing])),
  };
}

/** Credited when on chain and at or above the minimum. */
function creditable(deposit: SentChainDeposit, onChain: ReadonlyMap<string, boolean>): boolean {
  return !deposit.belowMinimum && onChain.get(deposit.hash) === true;
}

function sum(items: ReadonlyArray<{ amount: string }>): Decimal {
  return items.reduce((total, item) => total.plus(item.amount), new Decimal(0));
}

function chainStanding(deposit: SentChainDeposit, onChain: boolean, rows: readonly CryptoDepositRow[]): Standing {
  const live = rows.filter((row) => row.stage !== 'ORPHANED');
  const credited = rows.filter((row) => row.stage === 'CREDITED' || Number(row.transfers) > 0);
  if (!onChain) {
    // Taken back by a reorganisation: never credited, UNSUCCESSFUL if it was seen at all.
    if (credited.length > 0) return { settled: false, doubled: true, problem: `credited though the chain no longer holds it` };
    const open = live.filter((row) => row.status !== 'UNSUCCESSFUL');
    return open.length === 0
      ? { settled: true, doubled: false }
      : { settled: false, doubled: false, problem: `still ${open[0]!.status}, no longer on chain` };
  }
  if (live.length > 1) return { settled: false, doubled: true, problem: `recorded ${live.length} times` };
  const row = live[0];
  if (!row) return { settled: false, doubled: false, problem: 'on chain, never recorded (lost)' };
  if (!new Decimal(row.amount).eq(deposit.amount))
    return { settled: false, doubled: false, problem: `recorded as ${row.amount}, sent ${deposit.amount}` };
  if (deposit.belowMinimum) {
    if (Number(row.transfers) > 0) return { settled: false, doubled: true, problem: 'below the minimum, yet credited' };
    return row.stage === 'BELOW_MINIMUM' && row.status === 'UNSUCCESSFUL'
      ? { settled: true, doubled: false }
      : { settled: false, doubled: false, problem: `below the minimum, recorded ${row.status}/${row.stage}` };
  }
  if (Number(row.transfers) > 1) return { settled: false, doubled: true, problem: `${row.transfers} ledger transfers` };
  return row.stage === 'CREDITED' && row.status === 'SUCCESSFUL' && Number(row.transfers) === 1
    ? { settled: true, doubled: false }
    : { settled: false, doubled: false, problem: `${row.status}/${row.stage} with ${row.transfers} ledger transfer(s), not credited once` };
}

function bankStanding(credit: SentBankCredit, partnerId: string, rows: readonly SepaCreditRow[]): Standing {
  if (rows.length > 1) return { settled: false, doubled: true, problem: `recorded ${rows.length} times` };
  const row = rows[0];
  if (!row) return { settled: false, doubled: false, problem: 'delivered by the bank, never recorded (lost)' };
  if (!new Decimal(row.amount).eq(credit.amount))
    return { settled: false, doubled: false, problem: `recorded as ${row.amount}, sent ${credit.amount}` };
  if (credit.matched) {
    if (Number(row.deposit_transfers) > 1) return { settled: false, doubled: true, problem: `${row.deposit_transfers} ledger transfers` };
    return row.status === 'CREDITED' && row.partner_id === partnerId && Number(row.deposit_transfers) === 1
      ? { settled: true, doubled: false }
      : { settled: false, doubled: false, problem: `${row.status} to ${row.partner_id ?? 'nobody'}, not credited to the partner once` };
  }
  if (Number(row.suspense_transfers) !== 1)
    return { settled: false, doubled: false, problem: `${row.suspense_transfers} suspense transfers` };
  if (!credit.returnRequested)
    return row.status === 'UNMATCHED'
      ? { settled: true, doubled: false }
      : { settled: false, doubled: false, problem: `${row.status}, expected UNMATCHED` };
  if (Number(row.returns_at_bank) > 1 || Number(row.return_transfers) > 1)
    return {
      settled: false,
      doubled: true,
      problem: `returned ${row.returns_at_bank} times at the bank, ${row.return_transfers} return transfers`,
    };
  return row.status === 'RETURNED' && Number(row.return_transfers) === 1 && Number(row.returns_at_bank) === 1
    ? { settled: true, doubled: false }
    : { settled: false, doubled: false, problem: `${row.status} (return asked for), not returned once` };
}

/** The partner's balances by currency name, from any API that answers. */
async function balancesOf(apiUrls: readonly string[], apiKey: string): Promise<Record<string, string> | undefined> {
  for (const url of apiUrls) {
    try {
      const response = await fetch(`${url}/v1/partner/balances`, {
        headers: { authorization: `Bearer ${apiKey}` },
        signal: AbortSignal.timeout(10_000),
      });
      if (response.status !== 200) continue;
      const body = (await response.json()) as {
        fiatBalances: Array<{ name: string; amount: string }>;
        cryptoBalances: Array<{ name: string; amount: string }>;
      };
      return Object.fromEntries([...body.fiatBalances, ...body.cryptoBalances].map((balance) => [balance.name, balance.amount]));
    } catch {
      // try the next API
    }
  }
  return undefined;
}
