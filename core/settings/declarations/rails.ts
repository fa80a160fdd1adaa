import { EVM_NETWORKS, UTXO_NETWORKS } from '../../networks';
import type { EvmNetwork, UtxoNetwork } from '../../networks';
import { RAILS } from '../../rails';
import { instanceOf, setting } from '../setting';
import { chainId, evmAddress, extendedPrivateKey, httpUrl, integer, milliseconds, privateKey, rails, weiAmount } from '../values';

export const EVM_NETWORK_NAMES = EVM_NETWORKS;
export type EvmNetworkName = EvmNetwork;

/** The variables of one EVM network, declared once with <NETWORK> in their names; a network without an RPC URL is simulated. */
const EVM_NETWORK_SETTINGS = {
  rpcUrl: setting(
    'EVM_RPC_URL_<NETWORK>',
    httpUrl(),
    `JSON-RPC URL of the network's node (it may carry an API key), \`<NETWORK>\` one of ${EVM_NETWORK_NAMES.map((network) => `\`${network.toUpperCase()}\``).join(', ')}; setting it makes withdrawals on that network real`,
    { secret: true, shownDefault: '(none: simulated)' },
  ),
  chainId: setting('EVM_CHAIN_ID_<NETWORK>', chainId(), 'chain id signed into every transaction and checked against the node', {
    shownDefault: '(required with the URL)',
  }),
  hotWalletPrivateKey: setting('EVM_HOT_WALLET_KEY_<NETWORK>', privateKey(), "the hot wallet's private key, `0x` + 64 hex digits", {
    secret: true,
    shownDefault: '(required with the URL)',
  }),
  requiredConfirmations: setting(
    'EVM_CONFIRMATIONS_<NETWORK>',
    integer(12, { min: 1, max: 1000 }),
    "blocks (including the transaction's) before a withdrawal counts as confirmed (1–1000)",
  ),
  usdcTokenAddress: setting('EVM_USDC_ADDRESS_<NETWORK>', evmAddress(), 'the USDC token contract on that network', {
    shownDefault: '(required with the URL)',
  }),
  tokenTransferGasLimit: setting(
    'EVM_TOKEN_TRANSFER_GAS_LIMIT_<NETWORK>',
    integer(100_000, { min: 21_000, max: 10_000_000 }),
    'gas limit of a token transfer (21000–10000000; USDC takes 35 000 to 65 000 on mainnet): fixed, not estimated, since an estimate fails where the token would refuse, and a transfer that reverts on chain is a definite answer',
  ),
  maxFeePerGasCapWei: setting(
    'EVM_MAX_FEE_PER_GAS_WEI_<NETWORK>',
    weiAmount(500_000_000_000n),
    'no transaction is signed above this max fee per gas (wei)',
  ),
  depositConfirmations: setting(
    'EVM_DEPOSIT_CONFIRMATIONS_<NETWORK>',
    integer(12, { min: 1, max: 1000 }),
    "blocks (including the deposit's) before a deposit to a partner's address is credited (1–1000; `npm start`'s local node: 3)",
  ),
  depositPollIntervalMs: setting(
    'EVM_DEPOSIT_POLL_INTERVAL_MS_<NETWORK>',
    milliseconds(4_000, { min: 100, max: 600_000 }),
    'how long the deposit watcher waits for new blocks once it has read up to the head (100–600000)',
  ),
};

const evmNetwork = (network: EvmNetworkName) => instanceOf(EVM_NETWORK_SETTINGS, '<NETWORK>', network.toUpperCase());

export const UTXO_NETWORK_NAMES = UTXO_NETWORKS;
export type UtxoNetworkName = UtxoNetwork;

/** The variables of one UTXO network (bitcoin, litecoin, dogecoin); without an RPC URL it is simulated. */
const UTXO_NETWORK_SETTINGS = {
  rpcUrl: setting(
    'UTXO_RPC_URL_<NETWORK>',
    httpUrl(),
    `JSON-RPC URL of the network's node with its credentials (\`http://user:password@host:port\`; Bitcoin Core and its forks, or btcd, with a transaction index), \`<NETWORK>\` one of ${UTXO_NETWORKS.map((network) => `\`${network.toUpperCase()}\``).join(', ')}; setting it makes withdrawals on that network real`,
    { secret: true, shownDefault: '(none: simulated)' },
  ),
  hotWalletKey: setting(
    'UTXO_HOT_WALLET_KEY_<NETWORK>',
    extendedPrivateKey(),
    "the hot wallet's BIP32 account key (`m/84'/coin'/0'`, or `m/44'/…` where the network has no segwit), `xprv…`/`tprv…`: its `…/0/0` receives, `…/1/i` takes change",
    { secret: true, shownDefault: '(required with the URL)' },
  ),
  requiredConfirmations: setting(
    'UTXO_CONFIRMATIONS_<NETWORK>',
    integer(6, { min: 1, max: 1000 }),
    "blocks (including the transaction's) before a withdrawal counts as confirmed (1–1000; `npm start`'s regtest: 2)",
  ),
  feeRateFloor: setting(
    'UTXO_FEE_RATE_FLOOR_<NETWORK>',
    integer(2, { min: 1, max: 1_000_000 }),
    "the lowest fee rate signed, in base units per virtual byte (satoshis/vB): also the rate when the node has no estimate (regtest, a young node); dogecoin's relay floor is 1000",
  ),
  feeRateCeiling: setting(
    'UTXO_FEE_RATE_CEILING_<NETWORK>',
    integer(500, { min: 1, max: 10_000_000 }),
    'no transaction or replacement is signed above this fee rate (base units per virtual byte)',
  ),
  scanFromHeight: setting(
    'UTXO_WALLET_BIRTH_HEIGHT_<NETWORK>',
    integer(0, { min: 0, max: 100_000_000 }),
    "the first block read for the hot wallet's coins: the height at which it was created (nothing paid it before)",
  ),
};

const utxoNetwork = (network: UtxoNetworkName) => instanceOf(UTXO_NETWORK_SETTINGS, '<NETWORK>', network.toUpperCase());

/** Which rails are real: the EVM networks withdrawals are really sent on, and the rails a deployment accepts to simulate. */
export const RAIL_SETTINGS = {
  /** Assembled into `evmNetworks` by load.ts: a network is real once its RPC URL is set. */
  evm: {
    networks: { ethereum: evmNetwork('ethereum'), polygon: evmNetwork('polygon') } satisfies Record<EvmNetworkName, unknown>,
    // Each replacement raises fees by a quarter: a short wait would walk them to the cap in minutes.
    replaceAfterMs: setting(
      'EVM_REPLACE_AFTER_MS',
      milliseconds(180_000, { min: 10_000 }),
      'an unmined transaction, the next of its wallet to be mined, is replaced at the same nonce with 25% higher fees after this (at least 10000)',
    ),
  },
  /** Assembled into `utxoNetworks` by load.ts: a network is real once its RPC URL is set. */
  utxo: {
    networks: { bitcoin: utxoNetwork('bitcoin'), dogecoin: utxoNetwork('dogecoin'), litecoin: utxoNetwork('litecoin') } satisfies Record<
      UtxoNetworkName,
      unknown
    >,
    replaceAfterMs: setting(
      'UTXO_REPLACE_AFTER_MS',
      milliseconds(1_800_000, { min: 10_000 }),
      'an unconfirmed withdrawal is replaced (same inputs, a quarter higher fee rate, less change) after this (at least 10000)',
    ),
  },
  acceptedSimulatedRails: setting(
    'SIMULATED_RAILS',
    rails(),
    `comma list of ${RAILS.map((rail) => `\`${rail}\``).join(', ')}: the rails \`npm run api\`/\`worker\` may simulate; they refuse to start while a simulated rail is missing, or a real one is named (see "A deployment says what is real"). Never with real money`,
  ),
};
