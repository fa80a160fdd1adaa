import { setting } from '../setting';
import { ipAddress, list, milliseconds, oneOf, optionalText, port, text } from '../values';

/** Where `npm start` sends withdrawals on ethereum and polygon: the simulation or its local development chains (geth). */
export const LOCAL_CHAINS = ['simulated', 'local-evm'] as const;
export type LocalChain = (typeof LOCAL_CHAINS)[number];

/** What only the local machine uses: the infrastructure `npm start` and the tests bring up, the simulations' knobs. */
export const DEVELOPMENT_SETTINGS = {
  // Loopback by default: `npm start` serves a funded demo partner, and a laptop's network is not its own.
  host: setting(
    'HOST',
    ipAddress('127.0.0.1'),
    "which interface `npm start` and `npm run start:cluster` bind: every listener they open (the API and its metrics, the worker's health and metrics, the codec endpoint, Temporal and its Web UI, the embedded Postgres, the local chain's JSON-RPC) unless its own `*_HOST` is set; `0.0.0.0` serves every network this machine is on",
  ),
  // Resolved against the project root by load.ts.
  dataDir: setting(
    'DATA_DIR',
    text('.data'),
    "embedded Postgres files, Temporal dev-server database and log, demo key, the local development chains (`dev-chain-31337/` for ethereum, `dev-chain-31338/` for polygon: geth's database, its keys, its marker)",
  ),
  embeddedPostgresPort: setting('EMBEDDED_POSTGRES_PORT', port(54320), 'port of the embedded Postgres'),
  temporalCliPath: setting('TEMPORAL_CLI_PATH', optionalText(), 'a `temporal` binary to run the dev server with', {
    shownDefault: '(searched)',
  }),
  temporalPort: setting('TEMPORAL_PORT', port(7233), 'dev server frontend port'),
  temporalUiPort: setting('TEMPORAL_UI_PORT', port(8233), 'dev server Web UI port'),
  chainConfirmationDelayMs: setting('CHAIN_CONFIRMATION_DELAY_MS', milliseconds(5_000), 'simulated chain: broadcast to confirmation'),
  bankSettlementDelayMs: setting('BANK_SETTLEMENT_DELAY_MS', milliseconds(5_000), 'simulated bank: submission to answer'),
  bankRejectIbans: setting(
    'SIMULATED_BANK_REJECT_IBANS',
    list(),
    'comma-separated creditor IBANs the simulated bank rejects (to exercise the release path)',
  ),
  chain: setting(
    'CHAIN',
    oneOf(LOCAL_CHAINS, 'local-evm'),
    '`npm start` only: `local-evm` runs a local development chain per EVM network (geth: ethereum on chain id 31337, polygon on 31338, kept in `DATA_DIR`) for their withdrawals, deposits and sweeps (unless an `EVM_RPC_URL_<NETWORK>` is set); `simulated` keeps every network simulated',
  ),
  evmNodePort: setting(
    'EVM_NODE_PORT',
    port(8545),
    'JSON-RPC port of the local ethereum chain (`npm run ops -- chain fund` reaches it there too)',
  ),
  evmNodePolygonPort: setting('EVM_NODE_PORT_POLYGON', port(8546), 'JSON-RPC port of the local polygon chain'),
  utxoNodeBitcoinPort: setting(
    'UTXO_NODE_PORT_BITCOIN',
    port(18443),
    'JSON-RPC port of the local bitcoin chain (btcd in regtest; user and password `dev`)',
  ),
  utxoNodeLitecoinPort: setting(
    'UTXO_NODE_PORT_LITECOIN',
    port(19443),
    'JSON-RPC port of the local litecoin chain (Litecoin Core in regtest; user and password `dev`)',
  ),
  btcdPath: setting('BTCD_PATH', optionalText(), 'a `btcd` binary (v0.26.2) to run the local bitcoin chain with', {
    shownDefault: '(built with Go into ~/.cache)',
  }),
  litecoindPath: setting(
    'LITECOIND_PATH',
    optionalText(),
    'a `litecoind` binary (Litecoin Core 0.21) to run the local litecoin chain with',
    {
      shownDefault: '(litecoind on PATH; without it litecoin is simulated)',
    },
  ),
  gethPath: setting('GETH_PATH', optionalText(), 'a `geth` binary (v1.17.10) to run the local chain with', {
    shownDefault: '(built with Go into ~/.cache)',
  }),
};
