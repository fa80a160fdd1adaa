import { HDKey } from '@scure/bip32';
import * as bitcoin from 'bitcoinjs-lib';

/**
 * What a regtest UTXO hot wallet (bitcoin's on btcd, litecoin's on litecoind) paid out, read from the node's own JSON-RPC
 * answers (its decoded blocks and mempool: not our RPC client, not the service's tables). The wallet's addresses are derived here from its key, as any holder of the key would:
 * the first RECEIVING_ADDRESSES receiving and CHANGE_ADDRESSES change addresses (a wallet transaction paying an address
 * beyond them reads as a payment out: a false finding, never a false pass). Every output of a transaction that spends a
 * wallet output and pays another address is a payment, by destination.
 */

/** Native segwit addresses of the two regtest chains: only their prefix differs. */
const REGTEST = {
  bitcoin: bitcoin.networks.regtest,
  litecoin: { ...bitcoin.networks.regtest, bech32: 'rltc' },
} as const;
export type RegtestNetwork = keyof typeof REGTEST;

/** The native segwit address of a 20-byte key hash on the network's regtest chain. */
export function regtestSegwitAddress(network: RegtestNetwork, keyHash: Uint8Array): string {
  return bitcoin.payments.p2wpkh({ hash: Buffer.from(keyHash), network: REGTEST[network] }).address!;
}
const CHANGE_ADDRESSES = 3_000;
const RECEIVING_ADDRESSES = 5;

export interface UtxoPayment {
  txid: string;
  /** Its block's height, or undefined while it waits in the mempool. */
  height: number | undefined;
  satoshis: bigint;
}

export interface UtxoPayments {
  /** By destination address. */
  byDestination: Map<string, UtxoPayment[]>;
  /** Transactions that spent the wallet's outputs. */
  transactions: number;
  blocks: number;
}

interface DecodedTransaction {
  txid: string;
  vin: Array<{ txid?: string; vout?: number }>;
  vout: Array<{ value: number; n: number; scriptPubKey: { address?: string; addresses?: string[] } }>;
}

/** One JSON-RPC call; a node whose work queue is full (it answers so in plain text) is asked again shortly. */
async function call<T>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const url = new URL(rpcUrl);
  const authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  url.username = '';
  url.password = '';
  for (let attempt = 1; ; attempt += 1) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body: JSON.stringify({ jsonrpc: '1.0', id: method, method, params }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (/work queue depth exceeded/i.test(text) && attempt < 20) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    const body = JSON.parse(text) as { result: T; error: { message: string } | null };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  }
}

function walletAddresses(network: RegtestNetwork, accountKey: string): Set<string> {
  const account = HDKey.fromExtendedKey(accountKey, bitcoin.networks.regtest.bip32);
  const addresses = new Set<string>();
  const add = (chain: number, count: number) => {
    const keys = account.deriveChild(chain);
    for (let index = 0; index < count; index += 1) {
      const pubkey = keys.deriveChild(index).publicKey!;
      addresses.add(bitcoin.payments.p2wpkh({ pubkey, network: REGTEST[network] }).address!);
    }
  };
  add(0, RECEIVING_ADDRESSES);
  add(1, CHANGE_ADDRESSES);
  return addresses;
}

const addressOf = (output: DecodedTransaction['vout'][number]) => output.scriptPubKey.address ?? output.scriptPubKey.addresses?.[0];
// At most 8 decimals and below 2^53 satoshis: the double's nearest integer is exact.
const satoshisOf = (value: number) => BigInt(Math.round(value * 1e8));

/** The regtest wallet of `hotWalletKey` (a BIP84 account's tprv), read on the node at `rpcUrl` (with its credentials). */
export async function readUtxoPayments(network: RegtestNetwork, rpcUrl: string, hotWalletKey: string): Promise<UtxoPayments> {
  const wallet = walletAddresses(network, hotWalletKey);
  const owners = new Map<string, string | undefined>();
  const byDestination = new Map<string, UtxoPayment[]>();
  const seen = new Set<string>();
  let transactions = 0;
  const read = (transaction: DecodedTransaction, height: number | undefined) => {
    // A transaction read waiting in the mempool, then in a block mined meanwhile, counts once.
    if (seen.has(transaction.txid)) return;
    seen.add(transaction.txid);
    for (const output of transaction.vout) owners.set(`${transaction.txid}:${output.n}`, addressOf(output));
    const spendsWallet = transaction.vin.some(
      (input) => input.txid !== undefined && wallet.has(owners.get(`${input.txid}:${input.vout}`) ?? ''),
    );
    if (!spendsWallet) return;
    transactions += 1;
    for (const output of transaction.vout) {
      const address = addressOf(output) ?? `(no address: output ${output.n} of ${transaction.txid})`;
      if (wallet.has(address)) continue;
      byDestination.set(address, [
        ...(byDestination.get(address) ?? []),
        { txid: transaction.txid, height, satoshis: satoshisOf(output.value) },
      ]);
    }
  };
  let blocks = 0;
  const readBlocks = async () => {
    const head = await call<number>(rpcUrl, 'getblockcount');
    for (; blocks <= head; blocks += 1) {
      const hash = await call<string>(rpcUrl, 'getblockhash', [blocks]);
      // btcd lists a verbose block's transactions under `rawtx`, Bitcoin Core under `tx`.
      const block = await call<{ rawtx?: DecodedTransaction[]; tx?: DecodedTransaction[] }>(rpcUrl, 'getblock', [hash, 2]);
      for (const transaction of block.rawtx ?? block.tx ?? []) read(transaction, blocks);
    }
  };
  await readBlocks();
  // The mempool's order may put a child before its parent: each round reads those whose waiting parents were read.
  let waiting: DecodedTransaction[] = [];
  for (const txid of await call<string[]>(rpcUrl, 'getrawmempool')) {
    // Gone since the listing (mined, or replaced): the blocks read below have it.
    const transaction = await call<DecodedTransaction>(rpcUrl, 'getrawtransaction', [txid, 1]).catch(() => undefined);
    if (transaction) waiting.push(transaction);
  }
  while (waiting.length > 0) {
    const pending = new Set(waiting.map((transaction) => transaction.txid));
    const ready = waiting.filter((transaction) => transaction.vin.every((input) => input.txid === undefined || !pending.has(input.txid)));
    if (ready.length === 0) break;
    for (const transaction of ready) read(transaction, undefined);
    waiting = waiting.filter((transaction) => !ready.includes(transaction));
  }
  // What was mined while the mempool was read: no transaction falls between the two reads.
  await readBlocks();
  return { byDestination, transactions, blocks };
}

export function describePayments(list: readonly UtxoPayment[]): string {
  return list
    .map((each) => `${each.txid} (${each.satoshis} satoshis, ${each.height === undefined ? 'in the mempool' : `block ${each.height}`})`)
    .join(', ');
}
