import { NETWORKS, isEvmNetwork } from './networks';
import type { Network } from './networks';
import type { EvmNetworkSettings, UtxoNetworkSettings } from './settings';

/** A rail is simulated when no real adapter sends on it: the partner would see SUCCESSFUL for money nothing moved. */
export type Rail = 'sepa' | Network;
export const RAILS: readonly Rail[] = ['sepa', ...NETWORKS];

export function isRail(value: string): value is Rail {
  return (RAILS as readonly string[]).includes(value);
}

/** The chain settings a process holds: a network is real once its node is configured (EVM_RPC_URL_… or UTXO_RPC_URL_…). */
export interface ChainSettings {
  evmNetworks?: Readonly<Partial<Record<string, EvmNetworkSettings>>>;
  utxoNetworks?: Readonly<Partial<Record<string, UtxoNetworkSettings>>>;
}

function isNetwork(rail: Rail): rail is Network {
  return rail !== 'sepa';
}

/** The variable that makes a network real. */
export function rpcUrlVariable(network: Network): string {
  return `${isEvmNetwork(network) ? 'EVM' : 'UTXO'}_RPC_URL_${network.toUpperCase()}`;
}

/** What one process knows of each rail: those in neither list it cannot tell (see railsKnownTo). */
export interface RailView {
  simulated: readonly Rail[];
  real: readonly Rail[];
}

/** What a worker with these chain settings simulates and sends for real: the same decision as its adapters (worker/worker.ts). */
export function railsOfWorker(chains: ChainSettings): RailView {
  const isReal = (rail: Rail): boolean =>
    isNetwork(rail) && (isEvmNetwork(rail) ? chains.evmNetworks?.[rail] : chains.utxoNetworks?.[rail]) !== undefined;
  return { simulated: RAILS.filter((rail) => !isReal(rail)), real: RAILS.filter(isReal) };
}

/** The API holds no node settings: a chain network it has none for is the worker's to judge (at its own start). */
export function railsKnownTo(chains: ChainSettings, role: 'worker' | 'api'): RailView {
  const worker = railsOfWorker(chains);
  if (role === 'worker') return worker;
  return { simulated: worker.simulated.filter((rail) => !isNetwork(rail)), real: worker.real };
}

/** Every rail the process would simulate must be in SIMULATED_RAILS, and no real one may be: one line per problem. */
export function railDeclarationProblems(view: RailView, declared: readonly Rail[]): string[] {
  const problems: string[] = [];
  const undeclared = view.simulated.filter((rail) => !declared.includes(rail));
  if (undeclared.length > 0) {
    const accepted = RAILS.filter((rail) => declared.includes(rail) || undeclared.includes(rail));
    problems.push(
      `refusing to start: these rails would be simulated: ${undeclared.join(', ')}; ` +
        `set SIMULATED_RAILS=${accepted.join(',')} to accept that (never in production with real money)`,
    );
  }
  for (const rail of view.real.filter((each) => declared.includes(each))) {
    problems.push(
      `refusing to start: SIMULATED_RAILS names ${rail}, but ${rail} is real here (${rpcUrlVariable(rail as Network)} is set): ` +
        `remove ${rail} from SIMULATED_RAILS, or unset ${rpcUrlVariable(rail as Network)} to simulate it`,
    );
  }
  return problems;
}
