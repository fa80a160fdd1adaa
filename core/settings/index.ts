/** Every setting, read only through `loadSettings(env, projectRoot)`; each variable is declared once in declarations/. */
import type { Settings } from './load';

export {
  DECLARED_SETTINGS,
  InvalidSettingsError,
  SETTING_VARIABLES,
  loadProcessEnvironment,
  loadSettings,
  removeSecrets,
  withSecretsFromFiles,
} from './load';
export type { EvmNetworkSettings, UtxoNetworkSettings, ListenAddress, ListenHosts, Settings } from './load';
export { EVM_NETWORK_NAMES } from './declarations/rails';
export type { EvmNetworkName } from './declarations/rails';
export { LOCAL_CHAINS } from './declarations/development';
export type { LocalChain } from './declarations/development';
export { MANUAL_CREDIT_APPROVAL_OS_USERS } from './declarations/operator-cli';
export type { ManualCreditApprovalOsUsers } from './declarations/operator-cli';

/** The local machine's infrastructure and the simulated adapters' knobs; production configures real ones. */
export type DevelopmentSettings = Settings['development'];
/** Where the worker process serves what operators scrape; 0 turns either off. */
export type WorkerObservabilitySettings = Settings['workerObservability'];
