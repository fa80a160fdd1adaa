import type pg from 'pg';
import type { Logger } from '../core/logger';
import { Decimal, unitsToDecimal } from '../core/money';
import { findCustodyAddresses, findCustodyObligations } from '../db/queries/custody.queries';
import { inPgTransaction } from '../db/pg-transaction';
import { CURRENCY_SCALE } from '../core/currencies';
import type { EvmNetwork } from '../core/networks';
import type { EvmSweeper } from './adapters/chain/evm/evm-sweeper';

/** What custody reconciliation reads from the chain: the EVM networks' hot wallets and deposit addresses. */
export type EvmCustodyReader = Pick<EvmSweeper, 'networks' | 'currencies' | 'custodyBalances' | 'hotWallet'>;

export interface CustodyDependencies {
  /** Absent: no EVM network is real on this worker, and custody is not checked. */
  evmCustody?: EvmCustodyReader;
}

/** Deposit addresses read per network and run at most; beyond, their credited sums are taken as held (and said so). */
export const CUSTODY_ADDRESSES_PER_NETWORK = 500;

/** One currency's custody as one run saw it; amounts are exact decimal text. */
export interface CustodyLine {
  currency: string;
  /** What the chain holds: the hot wallets, and the deposit addresses read (at one block per network). */
  held: string;
  hotWallets: string;
  depositAddresses: string;
  /** Credited, unswept sums at addresses beyond the per-run bound: counted as held, not read. */
  assumedAtUnreadAddresses: string;
  /** What partners are owed: their available balances plus the holds of withdrawals not yet handed to the chain. */
  owed: string;
  available: string;
  heldForWithdrawals: string;
  /** owed − held when positive: the finding. */
  shortfall: string | null;
  networks: Array<{ network: string; block: string; hotWallet: string; addressesRead: number; addressesNotRead: number }>;
}

export interface CustodyReport {
  lines: CustodyLine[];
  shortfalls: CustodyLine[];
  /** Networks whose node could not be read this run: their currencies are not judged. */
  unchecked: Array<{ network: string; reason: string }>;
}

/** What the ledger says, read in one snapshot with the addresses to read. */
async function ledgerSide(pool: pg.Pool, networks: readonly EvmNetwork[], currencies: readonly string[]) {
  return inPgTransaction(pool, async (client) => {
    await client.query('set transaction isolation level repeatable read, read only');
    const obligations = await findCustodyObligations(client, currencies);
    const addresses = new Map<EvmNetwork, Awaited<ReturnType<typeof findCustodyAddresses>>>();
    for (const network of networks) addresses.set(network, await findCustodyAddresses(client, network, CUSTODY_ADDRESSES_PER_NETWORK));
    return { obligations, addresses };
  });
}

/**
 * Per EVM currency: what the chain holds (hot wallets and deposit addresses, at one block per network) against what partners
 * are owed; a shortfall is a finding. The smaller owed of the ledger read before and after the chain is judged, so a
 * deposit or withdrawal landing meanwhile is no false shortfall; a real one shows in both.
 */
export async function checkCustody(pool: pg.Pool, reader: EvmCustodyReader | undefined, log: Logger): Promise<CustodyReport> {
  if (!reader) return { lines: [], shortfalls: [], unchecked: [] };
  const networks = reader.networks();
  const currencies = [...new Set(networks.flatMap((network) => reader.currencies(network)))];
  const before = await ledgerSide(pool, networks, currencies);
  const unchecked: CustodyReport['unchecked'] = [];
  const chain = new Map<EvmNetwork, Awaited<ReturnType<EvmCustodyReader['custodyBalances']>>>();
  for (const network of networks) {
    try {
      chain.set(network, await reader.custodyBalances(network, before.addresses.get(network)!.addresses));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      log.warn(`custody of ${network} not checked: its node could not be read: ${reason}`);
      unchecked.push({ network, reason });
    }
  }
  const after = await findCustodyObligations(pool, currencies);

  const lines: CustodyLine[] = [];
  for (const currency of currencies) {
    const carrying = networks.filter((network) => reader.currencies(network).includes(currency));
    // A currency on a network not read this run cannot be judged: its coins there are unknown.
    if (carrying.some((network) => !chain.has(network))) continue;
    const decimal = (units: bigint) => new Decimal(unitsToDecimal(units, CURRENCY_SCALE[currency]));
    const pick = (balances: { native: bigint; token: bigint }) => (currency === 'usdc' ? balances.token : balances.native);
    let hotWallets = new Decimal(0);
    let depositAddresses = new Decimal(0);
    let assumed = new Decimal(0);
    const read: CustodyLine['networks'] = [];
    for (const network of carrying) {
      const balances = chain.get(network)!;
      const addresses = before.addresses.get(network)!;
      hotWallets = hotWallets.plus(decimal(pick(balances.hotWallet)));
      for (const each of balances.addresses) depositAddresses = depositAddresses.plus(decimal(pick(each)));
      assumed = assumed.plus(addresses.unread.get(currency) ?? '0');
      read.push({
        network,
        block: balances.block.toString(),
        hotWallet: reader.hotWallet(network)!,
        addressesRead: addresses.addresses.length,
        addressesNotRead: addresses.unreadAddresses,
      });
    }
    const owedOf = (side: typeof after) => {
      const entry = side.get(currency) ?? { available: '0', heldForWithdrawals: '0' };
      return { ...entry, owed: new Decimal(entry.available).plus(entry.heldForWithdrawals) };
    };
    const [first, second] = [owedOf(before.obligations), owedOf(after)];
    const judged = first.owed.lte(second.owed) ? first : second;
    const held = hotWallets.plus(depositAddresses).plus(assumed);
    const shortfall = judged.owed.minus(held);
    lines.push({
      currency,
      held: held.toFixed(),
      hotWallets: hotWallets.toFixed(),
      depositAddresses: depositAddresses.toFixed(),
      assumedAtUnreadAddresses: assumed.toFixed(),
      owed: judged.owed.toFixed(),
      available: new Decimal(judged.available).toFixed(),
      heldForWithdrawals: new Decimal(judged.heldForWithdrawals).toFixed(),
      shortfall: shortfall.gt(0) ? shortfall.toFixed() : null,
      networks: read,
    });
  }
  const shortfalls = lines.filter((line) => line.shortfall !== null);
  for (const line of shortfalls)
    log.error(`custody of ${line.currency} is short by ${line.shortfall}: the chain holds ${line.held}, partners are owed ${line.owed}`);
  return { lines, shortfalls, unchecked };
}
