import * as bitcoin from 'bitcoinjs-lib';
import { getAddress } from 'viem';
import { withdrawalAddressProblem } from '../../core/address-validation';
import { CHAIN_MODES, chainParameters } from '../../core/chain-parameters';
import type { ChainMode } from '../../core/chain-parameters';
import type { CryptoCurrency } from '../../core/currencies';
import type { Network } from '../../core/networks';

/** Fixed bytes instead of random ones, so a failure reproduces. */
function bytes(length: number, seed: number): Uint8Array {
  return Uint8Array.from({ length }, (_, index) => (seed + index * 37) % 256);
}

function p2wpkh(currency: 'btc' | 'ltc', mode: ChainMode): string {
  const address = bitcoin.payments.p2wpkh({ hash: bytes(20, 1), network: chainParameters(currency, mode) }).address;
  if (address === undefined) throw new Error('no p2wpkh address');
  return address;
}

function p2wsh(currency: 'btc' | 'ltc', mode: ChainMode): string {
  const address = bitcoin.payments.p2wsh({ hash: bytes(32, 2), network: chainParameters(currency, mode) }).address;
  if (address === undefined) throw new Error('no p2wsh address');
  return address;
}

function p2pkh(currency: 'btc' | 'ltc' | 'doge', mode: ChainMode): string {
  const address = bitcoin.payments.p2pkh({ hash: bytes(20, 3), network: chainParameters(currency, mode) }).address;
  if (address === undefined) throw new Error('no p2pkh address');
  return address;
}

function p2sh(currency: 'btc' | 'ltc' | 'doge', mode: ChainMode): string {
  const address = bitcoin.payments.p2sh({ hash: bytes(20, 4), network: chainParameters(currency, mode) }).address;
  if (address === undefined) throw new Error('no p2sh address');
  return address;
}

/** A taproot-style program whose 32 bytes end in `lastByte` (x = 1 is on secp256k1, x = 5 is not). */
function xOnlyKey(lastByte: number): Uint8Array {
  const key = new Uint8Array(32);
  key[31] = lastByte;
  return key;
}

/** Changes one character so the base58 or bech32 checksum no longer matches. */
function withTypo(address: string): string {
  const index = address.length - 3;
  const replacement = address[index] === 'q' ? 'p' : 'q';
  return address.slice(0, index) + replacement + address.slice(index + 1);
}

/** Swaps the case of the first letter after 0x, which breaks the EIP-55 checksum. */
function withBrokenChecksum(address: string): string {
  const index = address.slice(2).search(/[a-fA-F]/) + 2;
  const letter = address.charAt(index);
  const swapped = letter === letter.toUpperCase() ? letter.toLowerCase() : letter.toUpperCase();
  return address.slice(0, index) + swapped + address.slice(index + 1);
}

const evmLowercase = `0x${Buffer.from(bytes(20, 5)).toString('hex')}`;
const evmChecksummed = getAddress(evmLowercase);

describe('withdrawalAddressProblem for bitcoin', () => {
  it.each([
    ['p2wpkh', p2wpkh('btc', 'mainnet')],
    ['p2wsh', p2wsh('btc', 'mainnet')],
    ['p2pkh', p2pkh('btc', 'mainnet')],
    ['p2sh', p2sh('btc', 'mainnet')],
    ['p2tr', bitcoin.address.toBech32(xOnlyKey(1), 1, 'bc')],
    ['upper-case p2wpkh', p2wpkh('btc', 'mainnet').toUpperCase()],
  ])('accepts a mainnet %s address on mainnet', (_kind, address) => {
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'mainnet', address)).toBeUndefined();
  });

  it.each([
    ['p2wpkh', p2wpkh('btc', 'testnet')],
    ['p2pkh', p2pkh('btc', 'testnet')],
    ['p2sh', p2sh('btc', 'testnet')],
    ['p2tr', bitcoin.address.toBech32(xOnlyKey(1), 1, 'tb')],
  ])('accepts a testnet %s address on testnet', (_kind, address) => {
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'testnet', address)).toBeUndefined();
  });

  it('rejects a testnet address on mainnet and says it is a testnet address', () => {
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'mainnet', p2wpkh('btc', 'testnet'))).toBe(
      'walletAddress is a bitcoin testnet address, but withdrawals go to mainnet',
    );
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'mainnet', p2pkh('btc', 'testnet'))).toBe(
      'walletAddress is a bitcoin testnet address, but withdrawals go to mainnet',
    );
  });

  it('rejects a mainnet address on testnet and says it is a mainnet address', () => {
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'testnet', p2wpkh('btc', 'mainnet'))).toBe(
      'walletAddress is a bitcoin mainnet address, but withdrawals go to testnet',
    );
  });

  it.each([
    ['p2wpkh', p2wpkh('btc', 'regtest')],
    ['p2wsh', p2wsh('btc', 'regtest')],
    ['p2pkh', p2pkh('btc', 'regtest')],
    ['p2sh', p2sh('btc', 'regtest')],
    ['p2tr', bitcoin.address.toBech32(xOnlyKey(1), 1, 'bcrt')],
    ['upper-case p2wpkh', p2wpkh('btc', 'regtest').toUpperCase()],
  ])('accepts a regtest %s address on regtest', (_kind, address) => {
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'regtest', address)).toBeUndefined();
  });

  it('writes regtest segwit addresses with the bcrt prefix', () => {
    expect(p2wpkh('btc', 'regtest')).toMatch(/^bcrt1q/);
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'regtest', 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080')).toBeUndefined();
  });

  it("accepts a testnet base58 address on regtest, whose versions are testnet's", () => {
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'regtest', p2pkh('btc', 'testnet'))).toBeUndefined();
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'regtest', p2sh('btc', 'testnet'))).toBeUndefined();
  });

  it('rejects a mainnet address on regtest and says it is a mainnet address', () => {
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'regtest', p2wpkh('btc', 'mainnet'))).toBe(
      'walletAddress is a bitcoin mainnet address, but withdrawals go to regtest',
    );
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'regtest', p2pkh('btc', 'mainnet'))).toBe(
      'walletAddress is a bitcoin mainnet address, but withdrawals go to regtest',
    );
  });

  it('rejects a testnet segwit address on regtest, and a regtest one elsewhere, naming its chain', () => {
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'regtest', p2wpkh('btc', 'testnet'))).toBe(
      'walletAddress is a bitcoin testnet address, but withdrawals go to regtest',
    );
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'testnet', p2wpkh('btc', 'regtest'))).toBe(
      'walletAddress is a bitcoin regtest address, but withdrawals go to testnet',
    );
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'mainnet', p2wpkh('btc', 'regtest'))).toBe(
      'walletAddress is a bitcoin regtest address, but withdrawals go to mainnet',
    );
  });

  it.each([
    ['a bech32 checksum typo', withTypo(p2wpkh('btc', 'regtest'))],
    ['a litecoin regtest address', p2wpkh('ltc', 'regtest')],
    ['random text', 'not-an-address'],
  ])('rejects %s on regtest', (_description, address) => {
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'regtest', address)).toBe('walletAddress is not a valid bitcoin regtest address');
  });

  it.each([
    ['a bech32 checksum typo', withTypo(p2wpkh('btc', 'mainnet'))],
    ['a base58 checksum typo', withTypo(p2pkh('btc', 'mainnet'))],
    ['a litecoin segwit address', p2wpkh('ltc', 'mainnet')],
    ['a litecoin legacy address', p2pkh('ltc', 'mainnet')],
    ['a dogecoin address', p2pkh('doge', 'mainnet')],
    ['an ethereum address', evmChecksummed],
    ['a taproot key that is not on the curve', bitcoin.address.toBech32(xOnlyKey(5), 1, 'bc')],
    ['a future segwit version, whose coins could be lost', bitcoin.address.toBech32(bytes(32, 6), 2, 'bc')],
    ['a segwit v0 program of the wrong length', bitcoin.address.toBech32(bytes(25, 7), 0, 'bc')],
    ['random text', 'not-an-address'],
  ])('rejects %s', (_description, address) => {
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'mainnet', address)).toBe('walletAddress is not a valid bitcoin mainnet address');
  });
});

describe('withdrawalAddressProblem for litecoin', () => {
  it.each([
    ['p2wpkh', p2wpkh('ltc', 'mainnet')],
    ['p2wsh', p2wsh('ltc', 'mainnet')],
    ['p2pkh', p2pkh('ltc', 'mainnet')],
    ['p2sh', p2sh('ltc', 'mainnet')],
  ])('accepts a mainnet %s address on mainnet', (_kind, address) => {
    expect(withdrawalAddressProblem('ltc', 'litecoin', 'mainnet', address)).toBeUndefined();
  });

  it('accepts testnet addresses on testnet', () => {
    expect(withdrawalAddressProblem('ltc', 'litecoin', 'testnet', p2wpkh('ltc', 'testnet'))).toBeUndefined();
    expect(withdrawalAddressProblem('ltc', 'litecoin', 'testnet', p2pkh('ltc', 'testnet'))).toBeUndefined();
  });

  it('rejects a testnet address on mainnet and says it is a testnet address', () => {
    expect(withdrawalAddressProblem('ltc', 'litecoin', 'mainnet', p2wpkh('ltc', 'testnet'))).toBe(
      'walletAddress is a litecoin testnet address, but withdrawals go to mainnet',
    );
  });

  it.each([
    ['p2wpkh', p2wpkh('ltc', 'regtest')],
    ['p2wsh', p2wsh('ltc', 'regtest')],
    ['p2pkh', p2pkh('ltc', 'regtest')],
    ['p2sh', p2sh('ltc', 'regtest')],
  ])('accepts a regtest %s address on regtest', (_kind, address) => {
    expect(withdrawalAddressProblem('ltc', 'litecoin', 'regtest', address)).toBeUndefined();
  });

  it('writes regtest segwit addresses with the rltc prefix', () => {
    expect(p2wpkh('ltc', 'regtest')).toMatch(/^rltc1q/);
  });

  it('rejects a mainnet or testnet segwit address on regtest, and a regtest one on testnet, naming its chain', () => {
    expect(withdrawalAddressProblem('ltc', 'litecoin', 'regtest', p2wpkh('ltc', 'mainnet'))).toBe(
      'walletAddress is a litecoin mainnet address, but withdrawals go to regtest',
    );
    expect(withdrawalAddressProblem('ltc', 'litecoin', 'regtest', p2wpkh('ltc', 'testnet'))).toBe(
      'walletAddress is a litecoin testnet address, but withdrawals go to regtest',
    );
    expect(withdrawalAddressProblem('ltc', 'litecoin', 'testnet', p2wpkh('ltc', 'regtest'))).toBe(
      'walletAddress is a litecoin regtest address, but withdrawals go to testnet',
    );
  });

  it('rejects a bitcoin regtest address on litecoin regtest', () => {
    expect(withdrawalAddressProblem('ltc', 'litecoin', 'regtest', p2wpkh('btc', 'regtest'))).toBe(
      'walletAddress is not a valid litecoin regtest address',
    );
  });

  it.each([
    ['a bitcoin segwit address', p2wpkh('btc', 'mainnet')],
    ['a bitcoin legacy address', p2pkh('btc', 'mainnet')],
    ['a checksum typo', withTypo(p2wpkh('ltc', 'mainnet'))],
  ])('rejects %s', (_description, address) => {
    expect(withdrawalAddressProblem('ltc', 'litecoin', 'mainnet', address)).toBe('walletAddress is not a valid litecoin mainnet address');
  });
});

describe('withdrawalAddressProblem for dogecoin', () => {
  it('accepts p2pkh and p2sh addresses on mainnet', () => {
    expect(withdrawalAddressProblem('doge', 'dogecoin', 'mainnet', p2pkh('doge', 'mainnet'))).toBeUndefined();
    expect(withdrawalAddressProblem('doge', 'dogecoin', 'mainnet', p2sh('doge', 'mainnet'))).toBeUndefined();
  });

  it('accepts a testnet p2pkh address on testnet', () => {
    expect(withdrawalAddressProblem('doge', 'dogecoin', 'testnet', p2pkh('doge', 'testnet'))).toBeUndefined();
  });

  it('rejects a testnet address on mainnet and says it is a testnet address', () => {
    expect(withdrawalAddressProblem('doge', 'dogecoin', 'mainnet', p2pkh('doge', 'testnet'))).toBe(
      'walletAddress is a dogecoin testnet address, but withdrawals go to mainnet',
    );
  });

  it('accepts regtest p2pkh and p2sh addresses on regtest', () => {
    expect(p2pkh('doge', 'regtest')).toMatch(/^[mn]/);
    expect(withdrawalAddressProblem('doge', 'dogecoin', 'regtest', p2pkh('doge', 'regtest'))).toBeUndefined();
    expect(withdrawalAddressProblem('doge', 'dogecoin', 'regtest', p2sh('doge', 'regtest'))).toBeUndefined();
  });

  it('rejects a p2pkh address of another chain on regtest, and a regtest one elsewhere, naming its chain', () => {
    expect(withdrawalAddressProblem('doge', 'dogecoin', 'regtest', p2pkh('doge', 'mainnet'))).toBe(
      'walletAddress is a dogecoin mainnet address, but withdrawals go to regtest',
    );
    expect(withdrawalAddressProblem('doge', 'dogecoin', 'regtest', p2pkh('doge', 'testnet'))).toBe(
      'walletAddress is a dogecoin testnet address, but withdrawals go to regtest',
    );
    expect(withdrawalAddressProblem('doge', 'dogecoin', 'testnet', p2pkh('doge', 'regtest'))).toBe(
      'walletAddress is a dogecoin regtest address, but withdrawals go to testnet',
    );
  });

  it('rejects a bech32 address on regtest, dogecoin having no segwit', () => {
    const placeholder = bitcoin.address.toBech32(bytes(20, 8), 0, 'doge-regtest-unused');
    expect(withdrawalAddressProblem('doge', 'dogecoin', 'regtest', placeholder)).toBe(
      'walletAddress is not a valid dogecoin regtest address',
    );
  });

  it.each([
    ['a bech32 address with a doge prefix', bitcoin.address.toBech32(bytes(20, 8), 0, 'doge')],
    ['a bech32 address carrying the placeholder prefix of chainParameters', bitcoin.address.toBech32(bytes(20, 8), 0, 'doge-unused')],
    ['a bitcoin address', p2pkh('btc', 'mainnet')],
    ['a checksum typo', withTypo(p2pkh('doge', 'mainnet'))],
  ])('rejects %s', (_description, address) => {
    expect(withdrawalAddressProblem('doge', 'dogecoin', 'mainnet', address)).toBe('walletAddress is not a valid dogecoin mainnet address');
  });
});

describe('withdrawalAddressProblem for EVM currencies', () => {
  const evmCases: [CryptoCurrency, Network][] = [
    ['eth', 'ethereum'],
    ['pol', 'polygon'],
    ['usdc', 'ethereum'],
    ['usdc', 'polygon'],
  ];

  it.each(evmCases)('accepts a checksummed and an all-lowercase %s address on %s, on every chain alike', (currency, network) => {
    for (const mode of CHAIN_MODES) {
      expect(withdrawalAddressProblem(currency, network, mode, evmChecksummed)).toBeUndefined();
      expect(withdrawalAddressProblem(currency, network, mode, evmLowercase)).toBeUndefined();
    }
  });

  it.each(evmCases)('rejects a mixed-case %s address on %s whose EIP-55 checksum is wrong', (currency, network) => {
    expect(withdrawalAddressProblem(currency, network, 'mainnet', withBrokenChecksum(evmChecksummed))).toBe(
      `walletAddress has an invalid EIP-55 checksum (${network} address)`,
    );
  });

  it.each([
    ['too short', evmLowercase.slice(0, -2)],
    ['too long', `${evmLowercase}00`],
    ['missing the 0x prefix', evmLowercase.slice(2)],
    ['with an upper-case 0X prefix', `0X${evmLowercase.slice(2)}`],
    ['with a non-hex character', `${evmLowercase.slice(0, -1)}g`],
    ['a bitcoin address', p2wpkh('btc', 'mainnet')],
  ])('rejects an address %s', (_description, address) => {
    expect(withdrawalAddressProblem('eth', 'ethereum', 'mainnet', address)).toBe('walletAddress is not a valid ethereum address');
  });
});

describe('withdrawalAddressProblem for every currency', () => {
  const validAddress: Record<CryptoCurrency, [Network, string]> = {
    btc: ['bitcoin', p2wpkh('btc', 'mainnet')],
    ltc: ['litecoin', p2wpkh('ltc', 'mainnet')],
    doge: ['dogecoin', p2pkh('doge', 'mainnet')],
    eth: ['ethereum', evmChecksummed],
    pol: ['polygon', evmChecksummed],
    usdc: ['polygon', evmChecksummed],
  };
  const currencies = Object.keys(validAddress) as CryptoCurrency[];

  it.each(currencies)('rejects an empty %s address', (currency) => {
    const [network] = validAddress[currency];
    expect(withdrawalAddressProblem(currency, network, 'mainnet', '')).toBe('walletAddress must not be empty');
  });

  it.each(currencies)('rejects a %s address with leading or trailing whitespace', (currency) => {
    const [network, address] = validAddress[currency];
    for (const padded of [` ${address}`, `${address} `, `${address}\n`, `\t${address}`, `${address}\u00a0`]) {
      expect(withdrawalAddressProblem(currency, network, 'mainnet', padded)).toBe(
        'walletAddress must not have leading or trailing whitespace',
      );
    }
  });

  it('rejects a network the currency does not move on', () => {
    expect(withdrawalAddressProblem('btc', 'polygon', 'mainnet', evmChecksummed)).toBe('network polygon is not available for btc');
    expect(withdrawalAddressProblem('eth', 'polygon', 'mainnet', evmChecksummed)).toBe('network polygon is not available for eth');
    expect(withdrawalAddressProblem('pol', 'ethereum', 'mainnet', evmChecksummed)).toBe('network ethereum is not available for pol');
  });
});
