import type pg from 'pg';
import type { Logger } from '../core/logger';
import { Decimal, unitsToDecimal } from '../core/money';
import { findCustodyAddresses, findCustodyObligations, findUtxoCustodyOutputs } from '../db/queries/custody.queries';
import type { UtxoCustodyOutput } from '../db/queries/custody.queries';
import { inPgTransaction } from '../db/pg-transaction';
import { CURRENCY_SCALE } from '../core/currencies';
import { NETWORK_DECLARATIONS } from '../core/networks';
import type { EvmNetwork, Network, UtxoNetwork } from '../core/networks';
import type { EvmSweeper } from './adapters/chain/evm/evm-sweeper';
import type { UtxoChainAdapter } from './adapters/chain/utxo/utxo-chain.adapter';

/** What custody reconciliation reads from the chain: the EVM networks' hot wallets and deposit addresses. */
export type EvmCustodyReader = Pick<EvmSweeper, 'networks' | 'currencies' | 'custodyBalances' | 'hotWallet'>;
/** And the UTXO networks' outputs that hold what the ledger owes: the hot wallet's coins and the credited deposits. */
export type UtxoCustodyReader = Pick<UtxoChainAdapter, 'networks' | 'unspentOutputs' | 'scan'>;

/** Blocks a UTXO network's coins are read up to before its custody is judged: the change of a withdrawal just mined is counted. */
const BLOCKS_READ_BEFORE_CUSTODY = 20;

export interface CustodyDependencies {
  /** Absent: no EVM network is real on this worker, and their custody is not checked. */
  evmCustody?: EvmCustodyReader;
  /** Absent: no UTXO network is real on this worker. */
  utxoCustody?: UtxoCustodyReader;
}

/** Deposit addresses (EVM) or outputs (UTXO) read per network and run at most; beyond, their credited sums are taken as held (and said so). */
export const CUSTODY_ADDRESSES_PER_NETWORK = 500;

/** One currency's custody as one run saw it; amounts are exact decimal text. */
export interface CustodyLine {
  currency: string;
  /** What the chain holds: the hot wallets, and the deposit addresses read (at one block per network). */
  held: string;
  hotWallets: string;
  depositAddresses: string;
  /** Credited, unswept sums at addresses (UTXO: outputs) beyond the per-run bound: counted as held, not read. */
  assumedAtUnreadAddresses: string;
  /** What partners are owed: their available balances plus the holds of withdrawals not yet handed to the chain. */
  owed: string;
  available: string;
  heldForWithdrawals: string;
  /** owed − held when positive: the finding. */
  shortfall: string | null;
  /** Per network; on a UTXO network `block` is the height and the counts are of outputs (hot wallet coins and deposits). */
  networks: Array<{ network: string; block: string; hotWallet: string; addressesRead: number; addressesNotRead: number }>;
}

export interface CustodyReport {
  lines: CustodyLine[];
  shortfalls: CustodyLine[];
  /** Networks whose node could not be read this run, or whose wallet is not read up to the head: their currencies are not judged. */
  unchecked: Array<{ network: string; reason: string }>;
}

/** What one network's node says it holds of one currency. */
interface NetworkHolding {
  network: Network;
  currency: string;
  hotWallets: Decimal;
  depositAddresses: Decimal;
  assumed: Decimal;
  read: CustodyLine['networks'][number];
}

type UtxoOutputs = Awaited<ReturnType<typeof findUtxoCustodyOutputs>>;

/** What the ledger says, read in one snapshot with the addresses and outputs to read. */
async function ledgerSide(pool: pg.Pool, evm: readonly EvmNetwork[], utxo: readonly UtxoNetwork[], currencies: readonly string[]) {
  return inPgTransaction(pool, async (client) => {
    await client.query('set transaction isolation level repeatable read, read only');
    const obligations = await findCustodyObligations(client, currencies);
    const addresses = new Map<EvmNetwork, Awaited<ReturnType<typeof findCustodyAddresses>>>();
    for (const network of evm) addresses.set(network, await findCustodyAddresses(client, network, CUSTODY_ADDRESSES_PER_NETWORK));
    const outputs = new Map<UtxoNetwork, UtxoOutputs>();
    for (const network of utxo) {
      const scale = CURRENCY_SCALE[NETWORK_DECLARATIONS[network].nativeCurrency];
      outputs.set(network, await findUtxoCustodyOutputs(client, network, scale, CUSTODY_ADDRESSES_PER_NETWORK));
    }
    return { obligations, addresses, outputs };
  });
}

async function evmHoldings(
  reader: EvmCustodyReader,
  network: EvmNetwork,
  addresses: Awaited<ReturnType<typeof findCustodyAddresses>>,
): Promise<NetworkHolding[]> {
  const balances = await reader.custodyBalances(network, addresses.addresses);
  return reader.currencies(network).map((currency) => {
    const decimal = (units: bigint) => new Decimal(unitsToDecimal(units, CURRENCY_SCALE[currency]));
    const pick = (each: { native: bigint; token: bigint }) => (currency === 'usdc' ? each.token : each.native);
    return {
      network,
      currency,
      hotWallets: decimal(pick(balances.hotWallet)),
      depositAddresses: balances.addresses.reduce((sum, each) => sum.plus(decimal(pick(each))), new Decimal(0)),
      assumed: new Decimal(addresses.unread.get(currency) ?? '0'),
      read: {
        network,
        block: balances.block.toString(),
        hotWallet: reader.hotWallet(network)!,
        addressesRead: addresses.addresses.length,
        addressesNotRead: addresses.unreadAddresses,
      },
    };
  });
}

/** An output counts when the node's confirmed unspent set has it at the value recorded; a spent or unknown one holds nothing. */
async function utxoHoldings(reader: UtxoCustodyReader, network: UtxoNetwork, outputs: UtxoOutputs): Promise<NetworkHolding[]> {
  const chain = await reader.unspentOutputs(network, outputs.outputs);
  const sum = (holder: UtxoCustodyOutput['holder']) =>
    outputs.outputs.reduce((total, output, index) => {
      const onChain = chain.values[index];
      return output.holder === holder && onChain !== null && onChain !== undefined && new Decimal(onChain).eq(output.amount)
        ? total.plus(output.amount)
        : total;
    }, new Decimal(0));
  return [
    {
      network,
      currency: NETWORK_DECLARATIONS[network].nativeCurrency,
      hotWallets: sum('HOT_WALLET'),
      depositAddresses: sum('DEPOSIT_ADDRESS'),
      assumed: new Decimal(outputs.unread),
      read: {
        network,
        block: String(chain.height),
        hotWallet: chain.receivingAddress,
        addressesRead: outputs.outputs.length,
        addressesNotRead: outputs.unreadOutputs,
      },
    },
  ];
}

/**
 * Per currency of the real networks: what the chain holds (EVM: hot wallets and deposit addresses, at one block per network;
 * UTXO: the hot wallet's coins and the credited deposits' outputs in the node's confirmed unspent set) against what partners
 * are owed; a shortfall is a finding. The smaller owed of the ledger read before and after the chain is judged, so a deposit
 * or withdrawal landing meanwhile is no false shortfall; a real one shows in both.
 */
export async function checkCustody(pool: pg.Pool, readers: CustodyDependencies, log: Logger): Promise<CustodyReport> {
  const evm = readers.evmCustody?.networks() ?? [];
  const unchecked: CustodyReport['unchecked'] = [];
  const notReadable = (network: Network, error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    log.warn(`custody of ${network} not checked: ${reason}`);
    unchecked.push({ network, reason });
  };
  // The wallet's coins as of the node's head: a mined withdrawal's inputs are gone from the node's unspent set, its change
  // must be in utxo_coin too.
  const utxo: UtxoNetwork[] = [];
  for (const network of readers.utxoCustody?.networks() ?? []) {
    try {
      const scan = await readers.utxoCustody!.scan(network, BLOCKS_READ_BEFORE_CUSTODY);
      // A wallet whose blocks are not read up to the head yet (a first start, a long outage) has coins not yet recorded.
      if (scan.lastBlock < scan.head) throw new Error(`the wallet's blocks are read up to ${scan.lastBlock} of ${scan.head}`);
      utxo.push(network);
    } catch (error) {
      notReadable(network, error);
    }
  }
  const carried = new Map<Network, string[]>();
  for (const network of evm) carried.set(network, readers.evmCustody!.currencies(network));
  for (const network of utxo) carried.set(network, [NETWORK_DECLARATIONS[network].nativeCurrency]);
  const currencies = [...new Set([...carried.values()].flat())];
  if (currencies.length === 0) return { lines: [], shortfalls: [], unchecked: [] };
  const before = await ledgerSide(pool, evm, utxo, currencies);
  const holdings = new Map<Network, NetworkHolding[]>();
  const reads: Array<readonly [Network, () => Promise<NetworkHolding[]>]> = [
    ...evm.map((network) => [network, () => evmHoldings(readers.evmCustody!, network, before.addresses.get(network)!)] as const),
    ...utxo.map((network) => [network, () => utxoHoldings(readers.utxoCustody!, network, before.outputs.get(network)!)] as const),
  ];
  for (const [network, read] of reads) {
    try {
      holdings.set(network, await read());
    } catch (error) {
      notReadable(network, error);
    }
  }
  const after = await findCustodyObligations(pool, currencies);

  const lines: CustodyLine[] = [];
  for (const currency of currencies) {
    const carrying = [...carried].filter(([, each]) => each.includes(currency)).map(([network]) => network);
    // A currency on a network not read this run cannot be judged: its coins there are unknown.
    if (carrying.some((network) => !holdings.has(network))) continue;
    const mine = carrying.flatMap((network) => holdings.get(network)!.filter((holding) => holding.currency === currency));
    const total = (pick: (holding: NetworkHolding) => Decimal) => mine.reduce((sum, holding) => sum.plus(pick(holding)), new Decimal(0));
    const [hotWallets, depositAddresses, assumed] = [total((h) => h.hotWallets), total((h) => h.depositAddresses), total((h) => h.assumed)];
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
      networks: mine.map((holding) => holding.read),
    });
  }
  const shortfalls = lines.filter((line) => line.shortfall !== null);
  for (const line of shortfalls)
    log.error(`custody of ${line.currency} is short by ${line.shortfall}: the chain holds ${line.held}, partners are owed ${line.owed}`);
  return { lines, shortfalls, unchecked };
}
