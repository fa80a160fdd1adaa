import { HDKey } from '@scure/bip32';
import * as bitcoin from 'bitcoinjs-lib';
import { UtxoHotWallet } from '../../activities/adapters/chain/utxo/utxo-hot-wallet';
import {
  baseUnits,
  dustLimit,
  outputScript,
  selectCoins,
  signTransaction,
} from '../../activities/adapters/chain/utxo/utxo-transaction-builder';
import { chainModeOfNode } from '../../activities/adapters/chain/utxo/utxo-chain-mode';
import { chainParameters } from '../../core/chain-parameters';

const TESTNET_VERSIONS = { private: 0x04358394, public: 0x043587cf };
const accountKey = HDKey.fromMasterSeed(Buffer.alloc(32, 9), TESTNET_VERSIONS).derive("m/84'/1'/0'").privateExtendedKey;
const wallet = new UtxoHotWallet('bitcoin', accountKey, 'regtest');
const destination = outputScript(wallet, 'bitcoin', wallet.address({ chain: 0, index: 7 }));
const coin = (value: bigint, index: number) => ({ txid: `${index}`.padStart(64, 'a'), vout: index, value, chain: 0 as const, index });

describe('the UTXO transaction builder', () => {
  it('takes amounts in base units exactly, refusing what would need rounding', () => {
    expect(baseUnits('0.12345678', 'bitcoin')).toBe(12_345_678n);
    expect(baseUnits('21000000', 'bitcoin')).toBe(2_100_000_000_000_000n);
    expect(() => baseUnits('0.123456789', 'bitcoin')).toThrow('8 decimals');
    expect(() => baseUnits('0', 'litecoin')).toThrow('positive');
  });

  it("holds dust per output script as Bitcoin Core does, Litecoin's ten times Bitcoin's, Dogecoin's 0.01 DOGE", () => {
    const regtest = chainParameters('btc', 'regtest');
    const key = HDKey.fromMasterSeed(Buffer.alloc(32, 9)).derive('m/0').publicKey!;
    const p2wpkh = bitcoin.payments.p2wpkh({ pubkey: key, network: regtest }).output!;
    const p2pkh = bitcoin.payments.p2pkh({ pubkey: key, network: regtest }).output!;
    const p2sh = bitcoin.payments.p2sh({ redeem: { output: p2wpkh }, network: regtest }).output!;
    const p2wsh = bitcoin.payments.p2wsh({ redeem: { output: p2pkh }, network: regtest }).output!;
    const p2tr = Uint8Array.from([0x51, 0x20, ...Buffer.alloc(32, 7)]);
    expect([p2wpkh, p2tr, p2wsh, p2sh, p2pkh].map((script) => dustLimit('bitcoin', script))).toEqual([294n, 330n, 330n, 540n, 546n]);
    expect(dustLimit('litecoin', p2wpkh)).toBe(2_940n);
    expect(dustLimit('dogecoin', p2pkh)).toBe(1_000_000n);
  });

  it('sends change the node would refuse as dust to the fee instead', () => {
    // One coin just above amount + fee: the remainder is change coinselect would keep, below Litecoin's dust.
    const selection = selectCoins(wallet, [coin(1_000_000n + 2_000n, 1)], destination, 1_000_000n, 1, 2_940n);
    expect(selection).not.toBeNull();
    expect(selection!.change).toBe(0n);
    const kept = selectCoins(wallet, [coin(2_000_000n, 1)], destination, 1_000_000n, 1, 294n);
    expect(kept!.change).toBeGreaterThan(900_000n);
  });

  it('answers null when the coins do not cover amount and fee', () => {
    expect(selectCoins(wallet, [coin(1_000n, 1)], destination, 1_000n, 2, 294n)).toBeNull();
    expect(selectCoins(wallet, [], destination, 1n, 2, 294n)).toBeNull();
  });

  it('signs every input, pays the destination its exact amount and signals replace-by-fee', () => {
    const inputs = [coin(600_000n, 1), coin(700_000n, 2)];
    const signed = signTransaction(wallet, inputs, destination, 1_000_000n, { key: { chain: 1, index: 3 }, value: 299_000n });
    const transaction = bitcoin.Transaction.fromHex(signed.rawTransaction);
    expect(signed.fee).toBe(1_000n);
    expect(transaction.outs[0]!.value).toBe(1_000_000n);
    expect(Buffer.from(transaction.outs[1]!.script)).toEqual(Buffer.from(wallet.script({ chain: 1, index: 3 })));
    expect(transaction.ins.every((input) => input.sequence === 0xfffffffd && input.witness.length === 2)).toBe(true);
    expect(signed.txid).toBe(transaction.getId());
  });

  it('writes a taproot destination as OP_1 and its 32-byte key, without an ECC library', () => {
    const key = Buffer.alloc(32, 0x79);
    const address = bitcoin.address.toBech32(key, 1, 'bcrt');
    expect(Buffer.from(outputScript(wallet, 'bitcoin', address)).toString('hex')).toBe(`5120${key.toString('hex')}`);
    expect(() => outputScript(wallet, 'bitcoin', bitcoin.address.toBech32(key, 1, 'tb'))).toThrow('is not a bitcoin regtest address');
    const litecoin = bitcoin.payments.p2wpkh({
      pubkey: wallet.key({ chain: 0, index: 0 }).publicKey!,
      network: chainParameters('ltc', 'regtest'),
    });
    expect(() => outputScript(wallet, 'bitcoin', litecoin.address!)).toThrow('is not a bitcoin regtest address');
  });

  it("reads each node's name for its chain", () => {
    expect(['main', 'mainnet', 'test', 'testnet3', 'testnet4', 'signet', 'regtest', 'simnet', 'other', 7].map(chainModeOfNode)).toEqual([
      'mainnet',
      'mainnet',
      'testnet',
      'testnet',
      'testnet',
      'testnet',
      'regtest',
      'regtest',
      undefined,
      undefined,
    ]);
  });
});
