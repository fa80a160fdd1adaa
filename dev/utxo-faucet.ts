import { createHash } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import * as bitcoin from 'bitcoinjs-lib';
import { chainParameters } from '../core/chain-parameters';
import type { UtxoRpc } from '../activities/adapters/chain/utxo/utxo-rpc';
import { COINBASE_MATURITY } from './utxo-node';
import type { UtxoNodeNetwork } from './utxo-node';

/**
 * The regtest chains' faucet: every block mined pays its address, and `chain fund` (and the tests) pay from its mature
 * coinbases, then mine a block so the payment is confirmed. Its key is public by design (a fixed derivation): regtest only.
 */
const FAUCET_SEED = createHash('sha256').update('fintech-partner-api regtest faucet').digest();
const FAMILY = { bitcoin: 'btc', litecoin: 'ltc' } as const;
/** A regtest fee well above every relay floor: 2,000 base units per input and output. */
const FEE_PER_PART = 2_000n;

function faucetKey(network: UtxoNodeNetwork): HDKey {
  return HDKey.fromMasterSeed(FAUCET_SEED).derive(`m/84'/1'/${network === 'bitcoin' ? 0 : 1}'/0/0`);
}

function faucetPayment(network: UtxoNodeNetwork): bitcoin.Payment {
  return bitcoin.payments.p2wpkh({ pubkey: faucetKey(network).publicKey!, network: chainParameters(FAMILY[network], 'regtest') });
}

export function faucetAddress(network: UtxoNodeNetwork): string {
  return faucetPayment(network).address!;
}

/**
 * Pays `amount` base units to `address` from mature coinbases the faucet has not spent (newest mature first), mines one block
 * (paying the faucet) and answers the txid.
 */
export async function fundFromFaucet(rpc: UtxoRpc, network: UtxoNodeNetwork, address: string, amount: bigint): Promise<string> {
  const parameters = chainParameters(FAMILY[network], 'regtest');
  const destination = bitcoin.address.toOutputScript(address, parameters);
  const faucetScript = Buffer.from(faucetPayment(network).output!).toString('hex');
  const head = await rpc.blockCount();
  const inputs: Array<{ txid: string; value: bigint }> = [];
  let total = 0n;
  for (let height = head - COINBASE_MATURITY; height >= 1 && total < amount + FEE_PER_PART * BigInt(inputs.length + 3); height -= 1) {
    const block = await rpc.block(await rpc.blockHash(height));
    const coinbase = bitcoin.Transaction.fromHex(block.transactions[0]!);
    const output = coinbase.outs[0];
    if (!output || Buffer.from(output.script).toString('hex') !== faucetScript || output.value === 0n) continue;
    const txid = coinbase.getId();
    if ((await rpc.call('gettxout', [txid, 0, true])) === null) continue;
    inputs.push({ txid, value: output.value });
    total += output.value;
  }
  const fee = FEE_PER_PART * BigInt(inputs.length + 2);
  if (total < amount + fee) throw new Error(`the ${network} faucet holds too little for ${amount} base units: mine more blocks`);
  const key = faucetKey(network);
  const transaction = new bitcoin.Transaction();
  transaction.version = 2;
  for (const input of inputs) transaction.addInput(Buffer.from(input.txid, 'hex').reverse(), 0);
  transaction.addOutput(destination, amount);
  const change = total - amount - fee;
  if (change > 1_000n) transaction.addOutput(faucetPayment(network).output!, change);
  const legacy = bitcoin.payments.p2pkh({ pubkey: key.publicKey! }).output!;
  inputs.forEach((input, index) => {
    const hash = transaction.hashForWitnessV0(index, legacy, input.value, bitcoin.Transaction.SIGHASH_ALL);
    transaction.setWitness(index, [bitcoin.script.signature.encode(key.sign(hash), bitcoin.Transaction.SIGHASH_ALL), key.publicKey!]);
  });
  const txid = await rpc.send(transaction.toHex());
  await rpc.mine(1, faucetAddress(network));
  return txid;
}
