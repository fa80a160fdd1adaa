import * as bitcoin from 'bitcoinjs-lib';
import { withdrawalAddressProblem } from '../../core/address-validation';
import { chainParameters } from '../../core/chain-parameters';
import { addressMatchingKey, withdrawalAddressStatus } from '../../core/withdrawal-address-book';

const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const BECH32 = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const LITECOIN_BECH32 = bitcoin.payments.p2wpkh({ hash: Buffer.alloc(20, 7), network: chainParameters('ltc', 'mainnet') }).address!;
const BASE58 = '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2';
const DOGE = bitcoin.payments.p2pkh({ hash: Buffer.alloc(20, 9), network: chainParameters('doge', 'mainnet') }).address!;

describe('the address-book matching key', () => {
  it.each([
    ['ethereum', EVM],
    ['polygon', EVM],
  ] as const)('%s: every letter case of an address is one key (case is only the EIP-55 checksum)', (network, address) => {
    expect(addressMatchingKey(network, address)).toBe(address.toLowerCase());
    expect(addressMatchingKey(network, address.toLowerCase())).toBe(addressMatchingKey(network, address));
    expect(addressMatchingKey(network, `0x${address.slice(2).toUpperCase()}`)).toBe(addressMatchingKey(network, address));
  });

  it('bech32: upper and lower case are one address, and both are valid destinations', () => {
    expect(addressMatchingKey('bitcoin', BECH32.toUpperCase())).toBe(BECH32);
    expect(addressMatchingKey('bitcoin', BECH32)).toBe(BECH32);
    expect(addressMatchingKey('litecoin', LITECOIN_BECH32.toUpperCase())).toBe(LITECOIN_BECH32);
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'mainnet', BECH32.toUpperCase())).toBeUndefined();
  });

  it('base58: compared exactly, because another letter case is another address (or none)', () => {
    expect(addressMatchingKey('bitcoin', BASE58)).toBe(BASE58);
    expect(addressMatchingKey('bitcoin', BASE58.toLowerCase())).not.toBe(addressMatchingKey('bitcoin', BASE58));
    expect(addressMatchingKey('dogecoin', DOGE)).toBe(DOGE);
    expect(addressMatchingKey('dogecoin', DOGE.toUpperCase())).not.toBe(DOGE);
  });

  it('a mixed-case bech32 string is no bech32 address: compared exactly, the stricter choice', () => {
    const mixed = `B${BECH32.slice(1)}`;
    expect(addressMatchingKey('bitcoin', mixed)).toBe(mixed);
    expect(withdrawalAddressProblem('btc', 'bitcoin', 'mainnet', mixed)).toBeDefined();
  });
});

describe('an entry’s status', () => {
  it('is PENDING before activeFrom and ACTIVE from it on', () => {
    const activeFrom = new Date('2026-11-22T10:00:00.000Z');
    expect(withdrawalAddressStatus(activeFrom, new Date('2026-11-22T09:59:59.999Z'))).toBe('PENDING');
    expect(withdrawalAddressStatus(activeFrom, activeFrom)).toBe('ACTIVE');
    expect(withdrawalAddressStatus(activeFrom, new Date('2026-11-23T00:00:00.000Z'))).toBe('ACTIVE');
  });
});

describe('the destination check, for the address book', () => {
  it('names the field it checks', () => {
    expect(withdrawalAddressProblem('eth', 'ethereum', 'mainnet', EVM.toLowerCase().replace('0x5', '0xA'), 'address')).toMatch(/^address /);
    expect(withdrawalAddressProblem('eth', 'ethereum', 'mainnet', 'nope', 'address')).toBe('address is not a valid ethereum address');
    expect(withdrawalAddressProblem('eth', 'ethereum', 'mainnet', 'nope')).toBe('walletAddress is not a valid ethereum address');
  });
});
