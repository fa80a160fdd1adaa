import { CRYPTO_CURRENCIES } from '../../core/currencies';
import { CURRENCY_NETWORKS, EVM_CURRENCIES, EVM_NETWORKS, NETWORK_DECLARATIONS, defaultNetwork, isToken } from '../../core/networks';
import { DEPOSIT_KEY_FAMILY } from '../../core/deposit-addresses';

describe('core/networks.ts', () => {
  it("keeps each currency's default network: a request that names none goes where it always went", () => {
    expect(Object.fromEntries(CRYPTO_CURRENCIES.map((currency) => [currency, defaultNetwork(currency)]))).toEqual({
      btc: 'bitcoin',
      doge: 'dogecoin',
      eth: 'ethereum',
      ltc: 'litecoin',
      pol: 'polygon',
      usdc: 'ethereum',
    });
    expect(CURRENCY_NETWORKS.usdc).toEqual(['ethereum', 'polygon']);
  });

  it('derives the EVM lists, the tokens and the deposit key of each currency', () => {
    expect(EVM_NETWORKS).toEqual(['ethereum', 'polygon']);
    expect([...EVM_CURRENCIES].sort()).toEqual(['eth', 'pol', 'usdc']);
    expect(isToken('usdc', 'polygon')).toBe(true);
    expect(isToken('pol', 'polygon')).toBe(false);
    expect(isToken('eth', 'polygon')).toBe(false);
    expect(DEPOSIT_KEY_FAMILY).toEqual({ btc: 'btc', doge: 'doge', eth: 'evm', ltc: 'ltc', pol: 'evm', usdc: 'evm' });
    expect(NETWORK_DECLARATIONS.dogecoin.addressFormat).toBe('base58');
  });
});
