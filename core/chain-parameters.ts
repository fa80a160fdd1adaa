import * as bitcoin from 'bitcoinjs-lib';

/**
 * Which chain a UTXO network's network_config row points at: its address prefixes and the coin type of its deposit keys.
 * Regtest (a local node's private chain) takes testnet's coin type 1 and extended-key versions (tpub…), its own prefixes.
 */
export const CHAIN_MODES = ['mainnet', 'testnet', 'regtest'] as const;
export type ChainMode = (typeof CHAIN_MODES)[number];

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
const LITECOIN_REGTEST: bitcoin.Network = {
  messagePrefix: '\x19Litecoin Signed Message:\n',
  bech32: 'rltc',
  bip32: { public: 0x043587cf, private: 0x04358394 },
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
const DOGECOIN_REGTEST: bitcoin.Network = {
  messagePrefix: '\x19Dogecoin Signed Message:\n',
  bech32: 'doge-regtest-unused',
  bip32: { public: 0x043587cf, private: 0x04358394 },
  pubKeyHash: 0x6f,
  scriptHash: 0xc4,
  wif: 0xef,
};

const CHAIN_PARAMETERS: Readonly<Record<'btc' | 'ltc' | 'doge', Readonly<Record<ChainMode, bitcoin.Network>>>> = {
  btc: { mainnet: bitcoin.networks.bitcoin, testnet: bitcoin.networks.testnet, regtest: bitcoin.networks.regtest },
  ltc: { mainnet: LITECOIN, testnet: LITECOIN_TESTNET, regtest: LITECOIN_REGTEST },
  doge: { mainnet: DOGECOIN, testnet: DOGECOIN_TESTNET, regtest: DOGECOIN_REGTEST },
};

export function chainParameters(family: 'btc' | 'ltc' | 'doge', mode: ChainMode): bitcoin.Network {
  return CHAIN_PARAMETERS[family][mode];
}
