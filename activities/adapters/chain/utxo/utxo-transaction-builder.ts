import type { HDKey } from '@scure/bip32';
import * as bitcoin from 'bitcoinjs-lib';
import coinSelect from 'coinselect';
import { CURRENCY_SCALE } from '../../../../core/currencies';
import { Decimal } from '../../../../core/money';
import { NETWORK_DECLARATIONS } from '../../../../core/networks';
import type { UtxoNetwork } from '../../../../core/networks';
import type { UtxoHotWallet, WalletKey } from './utxo-hot-wallet';

/**
 * Coin selection and signing of a withdrawal's transaction. Coin selection is bitcoinjs' `coinselect` (no dependencies; first
 * an exact match without change, else the largest coins first): `@bitcoinerlab/coinselect` needs output descriptors and
 * their secp256k1 and miniscript stack for the same choice on our two script types. Sizes are virtual bytes: a P2WPKH
 * input counts 68, a P2PKH one 148. Every input signals replace-by-fee (BIP 125).
 */

export interface SpendableCoin extends WalletKey {
  txid: string;
  vout: number;
  value: bigint;
}

export interface SignedTransaction {
  txid: string;
  rawTransaction: string;
  fee: bigint;
  /** Base units per virtual byte, as signed. */
  feeRate: number;
  inputs: SpendableCoin[];
}

/** Opt-in replace-by-fee: every input's sequence below 0xfffffffe. */
const REPLACEABLE = 0xfffffffd;
/** Segwit input: outpoint, sequence and empty script (41) plus a quarter of the witness (about 27). */
const P2WPKH_INPUT_SCRIPT_BYTES = 27;
/** coinselect's amounts are numbers: every value it sees stays below 2^53. */
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * An output paying this script below this many base units is dust: nodes refuse to relay a transaction with one. Bitcoin
 * Core's rule: the output's size and the size of the input that would spend it, at 3 base units per byte (a witness
 * program's input counts its witness at a quarter): P2WPKH 294, P2TR and P2WSH 330, P2SH 540, P2PKH 546. Litecoin Core's
 * dust fee is ten times Bitcoin's; Dogecoin Core's dust limit is 0.01 DOGE whatever the script.
 */
export function dustLimit(network: UtxoNetwork, script: Uint8Array): bigint {
  if (network === 'dogecoin') return 1_000_000n;
  // OP_0..OP_16 and one push of 2 to 40 bytes: a witness program (BIP 141).
  const witnessProgram =
    script.length >= 4 &&
    script.length <= 42 &&
    (script[0] === 0 || (script[0]! >= 0x51 && script[0]! <= 0x60)) &&
    script[1] === script.length - 2;
  const output = 8 + 1 + script.length;
  const spendingInput = witnessProgram ? 32 + 4 + 1 + 4 + Math.floor(107 / 4) : 32 + 4 + 1 + 107 + 4;
  const floor = BigInt((output + spendingInput) * 3);
  return network === 'litecoin' ? floor * 10n : floor;
}

/** The dust limit of a wallet's change, whose scripts are all of its receiving address's type. */
export function changeDustLimit(network: UtxoNetwork, wallet: Pick<UtxoHotWallet, 'script'>): bigint {
  return dustLimit(network, wallet.script({ chain: 0, index: 0 }));
}

/**
 * The inputs, destination and change of a first attempt at `feeRate` (whole base units per virtual byte), or null when the
 * coins do not cover amount and fee.
 */
export function selectCoins(
  wallet: Pick<UtxoHotWallet, 'segwit'>,
  coins: readonly SpendableCoin[],
  destinationScript: Uint8Array,
  amount: bigint,
  feeRate: number,
  dust: bigint,
): { inputs: SpendableCoin[]; change: bigint } | null {
  if (amount > MAX_SAFE) return null;
  const candidates = coins
    .filter((coin) => coin.value <= MAX_SAFE)
    .map((coin) => ({ coin, value: Number(coin.value), ...(wallet.segwit ? { script: { length: P2WPKH_INPUT_SCRIPT_BYTES } } : {}) }));
  const result = coinSelect(candidates, [{ script: { length: destinationScript.length }, value: Number(amount) }], feeRate);
  if (!result.inputs || !result.outputs) return null;
  const change = BigInt(result.outputs.find((output) => output.script === undefined)?.value ?? 0);
  // Change the node would refuse as dust goes to the fee instead.
  return { inputs: result.inputs.map((input) => (input as { coin: SpendableCoin }).coin), change: change < dust ? 0n : change };
}

/** Signs inputs → destination (+ change when positive) and answers the transaction with its fee and rate. */
export function signTransaction(
  wallet: UtxoHotWallet,
  inputs: readonly SpendableCoin[],
  destinationScript: Uint8Array,
  amount: bigint,
  change: { key: WalletKey; value: bigint } | null,
): SignedTransaction {
  const outputs = [{ script: destinationScript, value: amount }];
  if (change && change.value > 0n) outputs.push({ script: wallet.script(change.key), value: change.value });
  const signed = signSpend(
    wallet.segwit,
    inputs.map((input) => ({ ...input, key: wallet.key(input) })),
    outputs,
  );
  return { ...signed, inputs: [...inputs] };
}

/** An output to spend with the key that owns it (the hot wallet's, or a deposit address's). */
export interface KeyedOutput {
  txid: string;
  vout: number;
  value: bigint;
  key: HDKey;
}

/**
 * Signs inputs → outputs, each input paying the script of its key's type (P2WPKH when `segwit`, else P2PKH), and answers
 * the transaction with its fee (inputs less outputs, never zero) and rate.
 */
export function signSpend(
  segwit: boolean,
  inputs: readonly KeyedOutput[],
  outputs: ReadonlyArray<{ script: Uint8Array; value: bigint }>,
): Omit<SignedTransaction, 'inputs'> {
  const transaction = new bitcoin.Transaction();
  transaction.version = 2;
  for (const input of inputs) transaction.addInput(Buffer.from(input.txid, 'hex').reverse(), input.vout, REPLACEABLE);
  for (const output of outputs) transaction.addOutput(output.script, output.value);
  const hashType = bitcoin.Transaction.SIGHASH_ALL;
  inputs.forEach((input, index) => {
    const publicKey = input.key.publicKey!;
    const legacyScript = bitcoin.payments.p2pkh({ pubkey: publicKey }).output!;
    const hash = segwit
      ? transaction.hashForWitnessV0(index, legacyScript, input.value, hashType)
      : transaction.hashForSignature(index, legacyScript, hashType);
    const signature = bitcoin.script.signature.encode(input.key.sign(hash), hashType);
    if (segwit) transaction.setWitness(index, [signature, publicKey]);
    else transaction.setInputScript(index, bitcoin.script.compile([signature, publicKey]));
  });
  const spent = inputs.reduce((sum, input) => sum + input.value, 0n);
  const fee = spent - outputs.reduce((sum, output) => sum + output.value, 0n);
  if (fee <= 0n) throw new Error('a transaction must pay a fee');
  return { txid: transaction.getId(), rawTransaction: transaction.toHex(), fee, feeRate: Number(fee) / transaction.virtualSize() };
}

/** The amount in the coin's smallest unit (8 decimals on every UTXO network); one that would need rounding is refused. */
export function baseUnits(amount: string, network: UtxoNetwork): bigint {
  const scale = CURRENCY_SCALE[NETWORK_DECLARATIONS[network].nativeCurrency];
  const units = new Decimal(amount).times(new Decimal(10).pow(scale));
  if (!units.isInteger() || units.lte(0)) throw new Error(`${amount} is not a positive amount of ${scale} decimals`);
  return BigInt(units.toFixed(0));
}

/** The output script paying a destination the API validated for the wallet's chain. */
export function outputScript(wallet: Pick<UtxoHotWallet, 'parameters' | 'mode'>, network: UtxoNetwork, address: string): Uint8Array {
  try {
    // Taproot (witness v1, validated by the API): OP_1 <32-byte key>, written here since bitcoinjs wants an ECC library for it.
    if (address.toLowerCase().startsWith(`${wallet.parameters.bech32}1p`)) {
      const decoded = bitcoin.address.fromBech32(address);
      if (decoded.version === 1 && decoded.prefix === wallet.parameters.bech32 && decoded.data.length === 32)
        return Uint8Array.from([0x51, 0x20, ...decoded.data]);
    }
    return bitcoin.address.toOutputScript(address, wallet.parameters);
  } catch {
    throw new Error(`${address} is not a ${network} ${wallet.mode} address`);
  }
}
