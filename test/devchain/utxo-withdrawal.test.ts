import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HDKey } from '@scure/bip32';
import * as bitcoin from 'bitcoinjs-lib';
import type pg from 'pg';
import { EvmChainIdentityGuard } from '../../activities/adapters/chain/evm/evm-chain-identity';
import { UtxoChainAdapter } from '../../activities/adapters/chain/utxo/utxo-chain.adapter';
import type { UtxoNetworkConfig } from '../../activities/adapters/chain/utxo/utxo-chain.adapter';
import { chainParameters } from '../../core/chain-parameters';
import { systemClock } from '../../core/clock';
import { Decimal, unitsToDecimal } from '../../core/money';
import { createLogger } from '../../core/logger';
import { endPool, openPool } from '../../db/pool';
import { freePort } from '../../dev/free-port';
import { faucetAddress, fundFromFaucet } from '../../dev/utxo-faucet';
import { startUtxoNode } from '../../dev/utxo-node';
import type { RunningUtxoNode, UtxoNodeNetwork } from '../../dev/utxo-node';
import { testStack } from '../support/stack';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createUtxoDepositActivities } from '../../activities/utxo-deposit.activities';
import { checkCustody } from '../../activities/custody-reconciliation';
import { createTestPartner, openTestOrm } from '../support/fixtures';
import { UtxoHotWallet } from '../../activities/adapters/chain/utxo/utxo-hot-wallet';
import { selectCoins, signSpend, signTransaction } from '../../activities/adapters/chain/utxo/utxo-transaction-builder';
import { UtxoDepositSweeper } from '../../activities/adapters/chain/utxo/utxo-deposit-sweeper';
import { TEST_DEPOSIT_KEYS, TEST_SIGNING_KEYS } from '../support/test-config';

/**
 * Withdrawals on the UTXO networks' real regtest nodes (btcd for bitcoin, Litecoin Core for litecoin), through the adapter and
 * read back with the nodes' own RPC: paid exactly once to the destination, the same bytes on a retry, twenty at once on
 * twenty sets of coins, a stuck transaction replaced by a higher fee with one attempt landing. network_config says regtest
 * for both networks while it runs (this tier runs on its own).
 */

const log = createLogger('utxo-withdrawal', 'warn');
const NETWORKS: UtxoNodeNetwork[] = ['bitcoin', 'litecoin'];
const FAMILY = { bitcoin: 'btc', litecoin: 'ltc' } as const;
const nodes = {} as Record<UtxoNodeNetwork, RunningUtxoNode>;
let dir: string;
let pool: pg.Pool;
let adapter: UtxoChainAdapter;
let configs: Record<UtxoNodeNetwork, UtxoNetworkConfig>;

/** Fixed per network: the run's database records the wallet's key at first use. */
function hotWalletKey(network: UtxoNodeNetwork): string {
  const seed = Buffer.alloc(32, network === 'bitcoin' ? 1 : 2);
  return HDKey.fromMasterSeed(seed, { private: 0x04358394, public: 0x043587cf }).derive("m/84'/1'/0'").privateExtendedKey;
}

function freshAddress(network: UtxoNodeNetwork): string {
  const key = HDKey.fromMasterSeed(randomBytes(32)).derive('m/0');
  return bitcoin.payments.p2wpkh({ pubkey: key.publicKey!, network: chainParameters(FAMILY[network], 'regtest') }).address!;
}

/** What the node says the transaction pays each address (its own decoding), in base units. */
async function paidTo(network: UtxoNodeNetwork, txid: string): Promise<Map<string, bigint>> {
  const raw = await nodes[network].rpc.call<{ hex: string }>('getrawtransaction', [txid, 1]);
  const transaction = bitcoin.Transaction.fromHex(raw.hex);
  const paid = new Map<string, bigint>();
  for (const output of transaction.outs) {
    const address = bitcoin.address.fromOutputScript(output.script, chainParameters(FAMILY[network], 'regtest'));
    paid.set(address, (paid.get(address) ?? 0n) + output.value);
  }
  return paid;
}

/** The transaction's fee as the node's transactions say: its inputs' values (read from their own transactions) less its outputs'. */
async function feeOnChain(network: UtxoNodeNetwork, txid: string): Promise<bigint> {
  const decode = async (id: string) =>
    bitcoin.Transaction.fromHex((await nodes[network].rpc.call<{ hex: string }>('getrawtransaction', [id, 1])).hex);
  const transaction = await decode(txid);
  let fee = 0n;
  for (const input of transaction.ins) fee += (await decode(Buffer.from(input.hash).reverse().toString('hex'))).outs[input.index]!.value;
  for (const output of transaction.outs) fee -= output.value;
  return fee;
}

async function mine(network: UtxoNodeNetwork, blocks: number): Promise<void> {
  await nodes[network].rpc.mine(blocks, faucetAddress(network));
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'utxo-'));
  for (const network of NETWORKS) {
    nodes[network] = await startUtxoNode({
      network,
      dir: path.join(dir, network),
      host: '127.0.0.1',
      rpcPort: await freePort(),
      miningAddress: faucetAddress(network),
      blockIntervalMs: 0,
      log,
    });
  }
  pool = openPool({ connectionString: testStack().databaseUrl, max: 25 });
  await pool.query(`update network_config set chain = 'regtest' where network in ('bitcoin', 'litecoin')`);
  configs = Object.fromEntries(
    NETWORKS.map((network) => [
      network,
      {
        rpcUrl: nodes[network].rpcUrl,
        hotWalletKey: hotWalletKey(network),
        requiredConfirmations: 2,
        feeRateFloor: 2,
        feeRateCeiling: 200,
        replaceAfterMs: 3_600_000,
        scanFromHeight: 0,
      },
    ]),
  ) as Record<UtxoNodeNetwork, UtxoNetworkConfig>;
  adapter = newAdapter(configs);
}, 300_000);

function newAdapter(networks: Partial<Record<UtxoNodeNetwork, UtxoNetworkConfig>>): UtxoChainAdapter {
  return new UtxoChainAdapter({ pool, networks, identityGuard: new EvmChainIdentityGuard({ pool, clock: systemClock, log }), log });
}

afterAll(async () => {
  await pool?.query(`update network_config set chain = 'mainnet' where network in ('bitcoin', 'litecoin')`);
  await Promise.all(Object.values(nodes).map((node) => node.stop()));
  await endPool(pool);
  fs.rmSync(dir, { recursive: true, force: true });
}, 120_000);

/** The deposits' sweeper of the run's adapter, with the test seed and a threshold every test deposit is above. */
function sweeperOf(network: UtxoNodeNetwork): UtxoDepositSweeper {
  return new UtxoDepositSweeper({
    pool,
    adapter,
    keys: TEST_SIGNING_KEYS,
    thresholds: { [network]: '0.0001' },
    clock: systemClock,
    log,
  });
}

/** Coins paid to the wallet's receiving address, mined to the withdrawals' two confirmations: what a withdrawal may spend. */
async function fundHotWallet(network: UtxoNodeNetwork, coins: number, each: bigint): Promise<void> {
  const address = await adapter.receivingAddress(network);
  for (let coin = 0; coin < coins; coin += 1) await fundFromFaucet(nodes[network].rpc, network, address, each);
  await mine(network, 1);
}

describe.each(NETWORKS)('withdrawals on %s', (network) => {
  test('a withdrawal lands once, paying the destination its exact amount; a retry sends the same bytes', async () => {
    await fundHotWallet(network, 2, 50_000_000n);
    const destination = freshAddress(network);
    const request = { withdrawalId: randomUUID(), currency: FAMILY[network], network, destination, amount: '0.12345678', memo: null };
    const first = await adapter.broadcast(request);
    const again = await adapter.broadcast(request);
    expect(again).toEqual(first);
    await expect(adapter.broadcast({ ...request, amount: '0.12345679' })).rejects.toThrow('already signed with different details');

    expect(await adapter.confirmationState({ network, transactionHash: first.transactionHash })).toBe('PENDING');
    await mine(network, 1);
    expect(await adapter.confirmationState({ network, transactionHash: first.transactionHash })).toBe('PENDING');
    await mine(network, 1);
    expect(await adapter.confirmationState({ network, transactionHash: first.transactionHash })).toBe('CONFIRMED');
    expect(await adapter.landedTransactionHash({ network, transactionHash: first.transactionHash })).toBe(first.transactionHash);

    const paid = await paidTo(network, first.transactionHash);
    expect(paid.get(destination)).toBe(12_345_678n);
    // Everything else returns to the wallet as change (a fresh address of its own), less the fee.
    expect(paid.size).toBe(2);
    // What the house paid the miners, for the ledger's NETWORK_FEES: exactly the node's fee, in whole coins.
    const fee = await feeOnChain(network, first.transactionHash);
    expect(fee).toBeGreaterThan(0n);
    expect(await adapter.networkFee({ network, transactionHash: first.transactionHash })).toBe(unitsToDecimal(fee, 8));
  });

  test("a coin paid to the receiving address is spent only at the withdrawals' confirmations", async () => {
    const request = {
      withdrawalId: randomUUID(),
      currency: FAMILY[network],
      network,
      destination: freshAddress(network),
      amount: '0.4',
      memo: null,
    };
    // Every coin the wallet holds is taken (as by another withdrawal) for the test: only the new one could pay.
    const holder = randomUUID();
    await adapter.scan(network, 500);
    await pool.query(`update utxo_coin set reserved_for = $2 where network = $1 and reserved_for is null`, [network, holder]);
    const funded = await fundFromFaucet(nodes[network].rpc, network, await adapter.receivingAddress(network), 50_000_000n);
    await expect(adapter.broadcast(request)).rejects.toThrow(/spendable coins \(0, 0 base units\) do not cover/);
    await mine(network, 1);
    const sent = await adapter.broadcast(request);
    const spent = bitcoin.Transaction.fromHex(
      (await nodes[network].rpc.call<{ hex: string }>('getrawtransaction', [sent.transactionHash, 1])).hex,
    );
    expect(spent.ins.map((input) => Buffer.from(input.hash).reverse().toString('hex'))).toEqual([funded]);
    await pool.query(`update utxo_coin set reserved_for = null where reserved_for = $1`, [holder]);
    await mine(network, 2);
  });

  test('twenty concurrent withdrawals spend no coin twice, and each lands', async () => {
    await fundHotWallet(network, 22, 10_000_000n);
    const requests = Array.from({ length: 20 }, (_, index) => ({
      withdrawalId: randomUUID(),
      currency: FAMILY[network],
      network,
      destination: freshAddress(network),
      amount: (0.01 + index / 1e8).toFixed(8),
      memo: null,
    }));
    const results = await Promise.all(requests.map((request) => adapter.broadcast(request)));
    expect(new Set(results.map((result) => result.transactionHash)).size).toBe(20);

    const spent = new Set<string>();
    for (const result of results) {
      const raw = await nodes[network].rpc.call<{ hex: string }>('getrawtransaction', [result.transactionHash, 1]);
      for (const input of bitcoin.Transaction.fromHex(raw.hex).ins) {
        const outpoint = `${Buffer.from(input.hash).reverse().toString('hex')}:${input.index}`;
        expect(spent.has(outpoint)).toBe(false);
        spent.add(outpoint);
      }
    }
    await mine(network, 2);
    for (const [index, result] of results.entries()) {
      expect(await adapter.confirmationState({ network, transactionHash: result.transactionHash })).toBe('CONFIRMED');
      expect((await paidTo(network, result.transactionHash)).get(requests[index]!.destination)).toBe(
        BigInt(Math.round(Number(requests[index]!.amount) * 1e8)),
      );
    }
  });

  test('a transaction left unconfirmed is replaced with a higher fee; one attempt lands, paying once', async () => {
    const patient = newAdapter({ [network]: { ...configs[network], replaceAfterMs: 0 } });
    await fundHotWallet(network, 1, 30_000_000n);
    const destination = freshAddress(network);
    const request = { withdrawalId: randomUUID(), currency: FAMILY[network], network, destination, amount: '0.05', memo: null };
    const first = await patient.broadcast(request);
    expect(await patient.confirmationState({ network, transactionHash: first.transactionHash })).toBe('PENDING');
    const { rows } = await pool.query<{ txid: string; fee: string }>(
      `select txid, fee_base_units::text as fee from utxo_transaction_attempt where withdrawal_id = $1 order by attempt`,
      [request.withdrawalId],
    );
    expect(rows).toHaveLength(2);
    expect(BigInt(rows[1]!.fee)).toBeGreaterThan(BigInt(rows[0]!.fee));
    await mine(network, 2);
    expect(await patient.confirmationState({ network, transactionHash: first.transactionHash })).toBe('CONFIRMED');
    const landed = await patient.landedTransactionHash({ network, transactionHash: first.transactionHash });
    // btcd relays the replacement; Litecoin Core refuses replacements by default (-mempoolreplacement=0, the network's
    // norm), so there the first attempt, still holding the inputs, is the one that lands.
    expect(landed).toBe(network === 'bitcoin' ? rows[1]!.txid : rows[0]!.txid);
    for (const other of rows.filter((row) => row.txid !== landed))
      expect((await nodes[network].rpc.transaction(other.txid))?.blockHash ?? null).toBeNull();
    expect((await paidTo(network, landed!)).get(destination)).toBe(5_000_000n);
    // The fee is the landed attempt's, asked by either attempt's id.
    const landedFee = await feeOnChain(network, landed!);
    expect(landedFee).toBe(BigInt(rows.find((row) => row.txid === landed)!.fee));
    expect(await patient.networkFee({ network, transactionHash: first.transactionHash })).toBe(unitsToDecimal(landedFee, 8));
  });
});

describe('a taproot destination', () => {
  test('is paid its exact amount (the output script written without an ECC library), as the node itself decodes it', async () => {
    await fundHotWallet('bitcoin', 1, 20_000_000n);
    const key = HDKey.fromMasterSeed(randomBytes(32)).derive('m/0');
    const destination = bitcoin.address.toBech32(Buffer.from(key.publicKey!.subarray(1)), 1, 'bcrt');
    const sent = await adapter.broadcast({
      withdrawalId: randomUUID(),
      currency: 'btc',
      network: 'bitcoin',
      destination,
      amount: '0.0123',
      memo: null,
    });
    await mine('bitcoin', 2);
    expect(await adapter.confirmationState({ network: 'bitcoin', transactionHash: sent.transactionHash })).toBe('CONFIRMED');
    const decoded = await nodes.bitcoin.rpc.call<{ vout: Array<{ value: number; scriptPubKey: { address?: string; type: string } }> }>(
      'getrawtransaction',
      [sent.transactionHash, 1],
    );
    expect(decoded.vout.filter((output) => output.scriptPubKey.address === destination)).toEqual([
      expect.objectContaining({ value: 0.0123, scriptPubKey: expect.objectContaining({ type: 'witness_v1_taproot' }) }),
    ]);
  });
});

describe('an input spent by a transaction not its own', () => {
  test('is recorded as a conflict, and the withdrawal stays pending, never confirmed and never released', async () => {
    await fundHotWallet('bitcoin', 1, 40_000_000n);
    const request = {
      withdrawalId: randomUUID(),
      currency: 'btc' as const,
      network: 'bitcoin' as const,
      destination: freshAddress('bitcoin'),
      amount: '0.01',
      memo: null,
    };
    const sent = await adapter.broadcast(request);
    // Someone else holding the wallet's key spends the same input with a higher fee (replacing ours in the mempool).
    const ours = bitcoin.Transaction.fromHex(
      (await nodes.bitcoin.rpc.call<{ hex: string }>('getrawtransaction', [sent.transactionHash, 1])).hex,
    );
    const wallet = new UtxoHotWallet('bitcoin', hotWalletKey('bitcoin'), 'regtest');
    const input = ours.ins[0]!;
    const { rows } = await pool.query<{ value: string; chain: 0 | 1; index: number }>(
      `select c.value_base_units::text as value, s.key_chain as chain, s.key_index as index
         from utxo_coin c join utxo_wallet_script s using (network, script_hex) where c.network = 'bitcoin' and c.txid = $1 and c.vout = $2`,
      [Buffer.from(input.hash).reverse().toString('hex'), input.index],
    );
    const coin = {
      txid: Buffer.from(input.hash).reverse().toString('hex'),
      vout: input.index,
      value: BigInt(rows[0]!.value),
      chain: rows[0]!.chain,
      index: rows[0]!.index,
    };
    const thief = freshAddress('bitcoin');
    const theft = signTransaction(
      wallet,
      [coin],
      bitcoin.address.toOutputScript(thief, chainParameters('btc', 'regtest')),
      coin.value - 100_000n,
      null,
    );
    await nodes.bitcoin.rpc.send(theft.rawTransaction);
    await mine('bitcoin', 2);

    await expect(adapter.confirmationState({ network: 'bitcoin', transactionHash: sent.transactionHash })).rejects.toThrow(
      'refused withdrawal',
    );
    const { rows: recorded } = await pool.query<{ conflict: string | null }>(
      `select conflict from utxo_transaction where withdrawal_id = $1 and conflict_found_at is not null`,
      [request.withdrawalId],
    );
    expect(recorded).toHaveLength(1);
    // Still its coin: nothing gives it back.
    const { rows: reserved } = await pool.query(`select 1 from utxo_coin where network = 'bitcoin' and reserved_for = $1`, [
      request.withdrawalId,
    ]);
    expect(reserved).toHaveLength(1);
    expect((await paidTo('bitcoin', theft.txid)).get(thief)).toBe(coin.value - 100_000n);
  });
});

describe('legacy P2PKH, as dogecoin has only, on the bitcoin regtest node', () => {
  // Dogecoin's regtest addresses share bitcoin regtest's P2PKH version (0x6f): a dogecoin wallet's script is one btcd spends.
  test('a wallet of P2PKH coins signs a spend the node accepts and mines, paying a P2PKH destination its exact amount', async () => {
    const wallet = new UtxoHotWallet('dogecoin', hotWalletKey('bitcoin'), 'regtest');
    expect(wallet.segwit).toBe(false);
    const fundingTxid = await fundFromFaucet(nodes.bitcoin.rpc, 'bitcoin', wallet.receivingAddress, 20_000_000n);
    const funding = bitcoin.Transaction.fromHex((await nodes.bitcoin.rpc.call<{ hex: string }>('getrawtransaction', [fundingTxid, 1])).hex);
    const vout = funding.outs.findIndex((output) => Buffer.from(output.script).equals(Buffer.from(wallet.script({ chain: 0, index: 0 }))));
    const coin = { txid: fundingTxid, vout, value: funding.outs[vout]!.value, chain: 0 as const, index: 0 };
    const destinationKey = HDKey.fromMasterSeed(randomBytes(32)).derive('m/0');
    const destination = bitcoin.payments.p2pkh({ pubkey: destinationKey.publicKey!, network: chainParameters('btc', 'regtest') });
    const selection = selectCoins(wallet, [coin], destination.output!, 7_654_321n, 2, 546n);
    expect(selection).not.toBeNull();
    const signed = signTransaction(wallet, selection!.inputs, destination.output!, 7_654_321n, {
      key: { chain: 1, index: 0 },
      value: selection!.change,
    });
    expect(await nodes.bitcoin.rpc.send(signed.rawTransaction)).toBe(signed.txid);
    await mine('bitcoin', 1);
    expect((await nodes.bitcoin.rpc.transaction(signed.txid))?.confirmations).toBe(1);
    expect((await paidTo('bitcoin', signed.txid)).get(destination.address!)).toBe(7_654_321n);
  });
});

describe.each(NETWORKS)('deposits on %s', (network) => {
  let orm: MikroORM;
  beforeAll(async () => {
    orm = await openTestOrm(2);
  });
  afterAll(async () => {
    await orm.close(true);
  });

  const scan = () =>
    new MockActivityEnvironment().run(
      (input: { network: UtxoNodeNetwork }) =>
        createUtxoDepositActivities({
          pool,
          clock: systemClock,
          log,
          utxoDeposits: { scanner: adapter, networks: { [network]: { confirmations: 2, pollIntervalMs: 1_000 } } },
        }).scanUtxoDeposits(input),
      { network },
    );

  async function partnerWallet() {
    const partner = await createTestPartner(orm);
    const account = partner.accounts[FAMILY[network]];
    return { account, address: account.walletAddress! };
  }

  async function depositsTo(address: string) {
    const { rows } = await pool.query<{
      status: string;
      stage: string;
      amount: string;
      failure: string | null;
      txid: string;
      vout: number;
    }>(
      `select status, stage, trim_scale(amount)::text as amount, failure_reason as failure, transaction_hash as txid, transfer_index as vout
         from crypto_deposit where address = $1 order by created_at`,
      [address],
    );
    return rows;
  }

  async function postedAmount(accountId: string): Promise<string> {
    const { rows } = await pool.query<{ amount: string }>(`select trim_scale(posted_amount)::text as amount from account where id = $1`, [
      accountId,
    ]);
    return rows[0]!.amount;
  }

  test("a deposit to a partner's regtest address is IN_PROGRESS when seen, credited once at its confirmations", async () => {
    const { account, address } = await partnerWallet();
    expect(address).toMatch(network === 'bitcoin' ? /^bcrt1q/ : /^rltc1q/);
    const txid = await fundFromFaucet(nodes[network].rpc, network, address, 31_250_000n);
    await scan();
    expect(await depositsTo(address)).toEqual([expect.objectContaining({ status: 'IN_PROGRESS', stage: 'SEEN', amount: '0.3125', txid })]);
    expect(await postedAmount(account.id)).toBe('0');
    await mine(network, 1);
    await scan();
    await scan();
    expect(await depositsTo(address)).toEqual([expect.objectContaining({ status: 'SUCCESSFUL', stage: 'CREDITED', amount: '0.3125' })]);
    expect(await postedAmount(account.id)).toBe('0.3125');
  });

  test('below the minimum deposit, an output is recorded and never credited', async () => {
    const { account, address } = await partnerWallet();
    // Below network_config's minimum (0.00005 btc, 0.0005 ltc), above each node's dust limit.
    await fundFromFaucet(nodes[network].rpc, network, address, network === 'bitcoin' ? 1_000n : 10_000n);
    await mine(network, 2);
    await scan();
    await scan();
    expect(await depositsTo(address)).toEqual([
      expect.objectContaining({ status: 'UNSUCCESSFUL', stage: 'BELOW_MINIMUM', failure: 'BELOW_MINIMUM_DEPOSIT' }),
    ]);
    expect(await postedAmount(account.id)).toBe('0');
  });

  if (network === 'litecoin') {
    test('a reorganisation before its confirmations credits nothing', async () => {
      const { account, address } = await partnerWallet();
      await fundFromFaucet(nodes.litecoin.rpc, 'litecoin', address, 40_000_000n);
      await scan();
      expect(await depositsTo(address)).toEqual([expect.objectContaining({ status: 'IN_PROGRESS' })]);
      // The deposit's block is taken away and the chain grows past it without the transaction (Litecoin Core's own calls).
      const head = await nodes.litecoin.rpc.blockCount();
      await nodes.litecoin.rpc.call('invalidateblock', [await nodes.litecoin.rpc.blockHash(head)]);
      for (let block = 0; block < 3; block += 1) await nodes.litecoin.rpc.call('generateblock', [faucetAddress('litecoin'), []]);
      await scan();
      await scan();
      expect(await depositsTo(address)).toEqual([
        expect.objectContaining({ status: 'UNSUCCESSFUL', stage: 'ORPHANED', failure: 'REMOVED_BY_REORGANISATION' }),
      ]);
      expect(await postedAmount(account.id)).toBe('0');
    });
  }

  test("credited deposits are swept in one transaction to the hot wallet: SWEPT at its confirmations, its fee in NETWORK_FEES, its coin the wallet's", async () => {
    const first = await partnerWallet();
    const second = await partnerWallet();
    await fundFromFaucet(nodes[network].rpc, network, first.address, 20_000_000n);
    await fundFromFaucet(nodes[network].rpc, network, second.address, 30_000_000n);
    await mine(network, 2);
    await scan();
    await scan();
    const credited = await pool.query<{ id: string; txid: string; vout: number; amount: string }>(
      `select id, transaction_hash as txid, transfer_index as vout, trim_scale(amount)::text as amount from crypto_deposit
        where network = $1 and stage = 'CREDITED' and utxo_sweep_id is null and block_orphaned_at is null`,
      [network],
    );
    expect(credited.rows.map((row) => row.amount)).toEqual(expect.arrayContaining(['0.2', '0.3']));
    const balances = [await postedAmount(first.account.id), await postedAmount(second.account.id)];
    const sweeper = sweeperOf(network);

    const sent = await sweeper.round(network);
    expect(sent).toEqual({ stage: 'SENT', sweepId: expect.any(String), txid: expect.any(String), deposits: credited.rows.length });
    // Another round while it waits follows the same transaction: nothing is signed twice.
    expect(await sweeper.round(network)).toEqual(sent);
    // The node's own decoding: every credited deposit's output spent, one output paying a script of the wallet.
    const raw = await nodes[network].rpc.call<{ hex: string }>('getrawtransaction', [sent.txid, 1]);
    const transaction = bitcoin.Transaction.fromHex(raw.hex);
    const spent = transaction.ins.map((input) => `${Buffer.from(input.hash).reverse().toString('hex')}:${input.index}`);
    expect(spent.sort()).toEqual(credited.rows.map((row) => `${row.txid}:${row.vout}`).sort());
    expect(transaction.outs).toHaveLength(1);
    const script = Buffer.from(transaction.outs[0]!.script).toString('hex');
    const walletScript = await pool.query(`select 1 from utxo_wallet_script where network = $1 and script_hex = $2 and key_chain = 1`, [
      network,
      script,
    ]);
    expect(walletScript.rowCount).toBe(1);
    const total = credited.rows.reduce((sum, row) => sum.plus(row.amount), new Decimal(0));
    const fee = await feeOnChain(network, sent.txid!);
    expect(unitsToDecimal(transaction.outs[0]!.value + fee, 8)).toBe(total.toFixed());

    await mine(network, 2);
    expect(await sweeper.round(network)).toEqual({ ...sent, stage: 'SWEPT' });
    const sweep = await pool.query<{ status: string; fee: string }>(
      `select s.status, trim_scale(p.amount)::text as fee from utxo_sweep s
         join ledger_posting p on p.transfer_id = s.fee_transfer_id
         join account a on a.id = p.account_id and a.system_code = 'NETWORK_FEES'
        where s.id = $1`,
      [sent.sweepId],
    );
    expect(sweep.rows).toEqual([{ status: 'SWEPT', fee: unitsToDecimal(fee, 8) }]);
    for (const row of credited.rows) expect(await nodes[network].rpc.unspentOutput(row.txid, row.vout)).toBeNull();
    // The scanner records the sweep's coin for withdrawals to spend; the partners' balances do not move.
    await scan();
    const coin = await pool.query<{ value: string; reserved: string | null }>(
      `select value_base_units::text as value, reserved_for as reserved from utxo_coin where network = $1 and txid = $2 and vout = 0`,
      [network, sent.txid],
    );
    expect(coin.rows).toEqual([{ value: String(transaction.outs[0]!.value), reserved: null }]);
    expect([await postedAmount(first.account.id), await postedAmount(second.account.id)]).toEqual(balances);
    // Nothing left to sweep.
    expect(await sweeper.round(network)).toEqual({ stage: 'NOTHING', deposits: 0 });
  });

  test("a deposit spent elsewhere with its own key fails the sweep that took it; the sweep's other deposit goes to the next one", async () => {
    const sweeper = sweeperOf(network);
    const victim = await partnerWallet();
    const other = await partnerWallet();
    const stolen = await fundFromFaucet(nodes[network].rpc, network, victim.address, 40_000_000n);
    await fundFromFaucet(nodes[network].rpc, network, other.address, 50_000_000n);
    await mine(network, 2);
    await scan();
    await scan();
    const deposit = async (address: string) =>
      (
        await pool.query<{ id: string; txid: string; vout: number; sweep: string | null; index: number }>(
          `select d.id, d.transaction_hash as txid, d.transfer_index as vout, d.utxo_sweep_id as sweep, p.deposit_index as index
             from crypto_deposit d join partner p on p.id = d.partner_id where d.address = $1 and d.stage = 'CREDITED'`,
          [address],
        )
      ).rows[0]!;
    const taken = await deposit(victim.address);
    expect(taken.txid).toBe(stolen);
    // Whoever else holds the deposit key spends the output in a block, before the sweep is sent.
    const key = TEST_DEPOSIT_KEYS.accountKey(FAMILY[network], 'regtest').deriveChild(0).deriveChild(taken.index);
    const thief = bitcoin.address.toOutputScript(freshAddress(network), chainParameters(FAMILY[network], 'regtest'));
    const theft = signSpend(
      true,
      [{ txid: taken.txid, vout: taken.vout, value: 40_000_000n, key }],
      [{ script: thief, value: 39_900_000n }],
    );
    await nodes[network].rpc.send(theft.rawTransaction);
    await mine(network, 1);

    const failed = await sweeper.round(network);
    expect(failed).toEqual({ stage: 'FAILED', sweepId: expect.any(String), txid: expect.any(String), deposits: 2 });
    expect((await deposit(victim.address)).sweep).toBe(failed.sweepId);
    expect((await deposit(other.address)).sweep).toBeNull();
    const next = await sweeper.round(network);
    expect(next).toEqual({ stage: 'SENT', sweepId: expect.any(String), txid: expect.any(String), deposits: 1 });
    const spent = bitcoin.Transaction.fromHex(
      (await nodes[network].rpc.call<{ hex: string }>('getrawtransaction', [next.txid, 1])).hex,
    ).ins;
    const released = await deposit(other.address);
    expect(spent.map((input) => `${Buffer.from(input.hash).reverse().toString('hex')}:${input.index}`)).toEqual([
      `${released.txid}:${released.vout}`,
    ]);
    await mine(network, 2);
    expect(await sweeper.round(network)).toEqual({ ...next, stage: 'SWEPT' });
    const statuses = await pool.query<{ status: string; reason: string | null }>(
      `select status, failure_reason as reason from utxo_sweep where id = any($1::uuid[]) order by created_at`,
      [[failed.sweepId, next.sweepId]],
    );
    expect(statuses.rows).toEqual([
      { status: 'FAILED', reason: 'INPUTS_SPENT' },
      { status: 'SWEPT', reason: null },
    ]);
  });
});

describe('custody on the UTXO networks', () => {
  let orm: MikroORM;
  beforeAll(async () => {
    orm = await openTestOrm(2);
  });
  afterAll(async () => {
    await orm.close(true);
  });

  const custodyLine = async (currency: string) => {
    const report = await checkCustody(pool, { utxoCustody: adapter }, log);
    expect(report.unchecked).toEqual([]);
    return report.lines.find((line) => line.currency === currency)!;
  };

  test.each(NETWORKS)(
    "%s: the credited deposits' outputs are held, coins spent (by our transactions or another's) are not; owing more than is held is a shortfall",
    async (network) => {
      const currency = FAMILY[network];
      const line = await custodyLine(currency);
      const { rows } = await pool.query<{ txid: string; vout: number; amount: string }>(
        `select d.transaction_hash as txid, d.transfer_index as vout, trim_scale(d.amount)::text as amount
           from crypto_deposit d left join utxo_sweep s on s.id = d.utxo_sweep_id
          where d.network = $1 and d.stage in ('CREDITED', 'BELOW_MINIMUM') and d.block_orphaned_at is null
            and s.status is distinct from 'SWEPT'`,
        [network],
      );
      // The deposits tier above credited some (and recorded some below the minimum, in custody too), swept the credited
      // ones, and had one stolen with its own key: held is what of the rest the node's unspent set still has.
      let held = new Decimal(0);
      let spent = 0;
      for (const row of rows) {
        if ((await nodes[network].rpc.unspentOutput(row.txid, row.vout)) === null) spent += 1;
        else held = held.plus(row.amount);
      }
      expect(held.gt(0)).toBe(true);
      expect(spent).toBe(1);
      expect(line.depositAddresses).toBe(held.toFixed());
      expect(line.networks).toEqual([
        {
          network,
          block: String(await nodes[network].rpc.blockCount()),
          hotWallet: await adapter.receivingAddress(network),
          addressesRead: expect.any(Number),
          addressesNotRead: 0,
        },
      ]);
      // The hot wallet's coins the node still holds: what the tests funded less what their withdrawals spent.
      const { rows: coins } = await pool.query<{ txid: string; vout: number; value: string }>(
        `select txid, vout, value_base_units::text as value from utxo_coin where network = $1`,
        [network],
      );
      let unspent = 0n;
      for (const coin of coins) {
        const found = await nodes[network].rpc.call<{ value: number } | null>('gettxout', [coin.txid, coin.vout, false]);
        if (found) unspent += BigInt(coin.value);
      }
      expect(line.hotWallets).toBe(unitsToDecimal(unspent, 8));
      expect(line.shortfall).toBeNull();

      // A partner owed more than the chain holds: the difference is the finding, to the last decimal.
      await createTestPartner(orm, { deposits: { [currency]: '100000' } });
      const short = await custodyLine(currency);
      expect(short.held).toBe(line.held);
      expect(short.owed).toBe(new Decimal(line.owed).plus('100000').toFixed());
      expect(short.shortfall).toBe(new Decimal(short.owed).minus(short.held).toFixed());
    },
  );
});

describe("litecoin's regtest chain", () => {
  test("keeps mining past MWEB's activation height (432 on regtest), and a withdrawal lands beyond it", async () => {
    const height = await nodes.litecoin.rpc.blockCount();
    if (height < 440) await mine('litecoin', 440 - height);
    await fundHotWallet('litecoin', 1, 50_000_000n);
    expect(await nodes.litecoin.rpc.blockCount()).toBeGreaterThan(440);
    const destination = freshAddress('litecoin');
    const sent = await adapter.broadcast({
      withdrawalId: randomUUID(),
      currency: 'ltc',
      network: 'litecoin',
      destination,
      amount: '0.25',
      memo: null,
    });
    await mine('litecoin', 2);
    expect(await adapter.confirmationState({ network: 'litecoin', transactionHash: sent.transactionHash })).toBe('CONFIRMED');
    expect((await paidTo('litecoin', sent.transactionHash)).get(destination)).toBe(25_000_000n);
  });
});
