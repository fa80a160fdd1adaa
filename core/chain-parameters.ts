import * as bitcoin from 'bitcoinjs-lib';

/** bitcoinjs-lib ships bitcoin's parameters, not these; dogecoin has no bech32 (its prefix is unused). */
const LITECOIN: bitcoin.Network = {
  messagePrefix: '\x19Litecoin Signed Message:\n',
  bech32: 'ltc',
  bip32: { public: 0x019da462, private: 0x019d9cfe },
  pubKeyHash: 0x30,
  scriptHash: 0x32,
  wif: 0xb0,
};
const LITECOIN_TESTNET: bitcoin.Network = {
  messagePrefix: '\x19Litecoin Signed Message:\n',
  bech32: 'tltc',
  bip32: { public: 0x0436f6e1, private: 0x0436ef7d },
  pubKeyHash: 0x6f,
  scriptHash: 0x3a,
  wif: 0xef,
};
const DOGECOIN: bitcoin.Network = {
  messagePrefix: '\x19Dogecoin Signed Message:\n',
  bech32: 'doge-unused',
  bip32: { public: 0x02facafd, private: 0x02fac398 },
  pubKeyHash: 0x1e,
  scriptHash: 0x16,
  wif: 0x9e,
};
const DOGECOIN_TESTNET: bitcoin.Network = {
  messagePrefix: '\x19Dogecoin Signed Message:\n',
  bech32: 'doge-test-unused',
  bip32: { public: 0x043587cf, private: 0x04358394 },
  pubKeyHash: 0x71,
  scriptHash: 0xc4,
  wif: 0xf1,
};

export function chainParameters(currency: 'btc' | 'ltc' | 'doge', mainnet: boolean): bitcoin.Network {
  switch (currency) {
    case 'btc':
      return mainnet ? bitcoin.networks.bitcoin : bitcoin.networks.testnet;
    case 'ltc':
      return mainnet ? LITECOIN : LITECOIN_TESTNET;
    case 'doge':
      return mainnet ? DOGECOIN : DOGECOIN_TESTNET;
  }
}
