import { EVM_NETWORKS, NETWORKS } from './networks';
import type { Network } from './networks';
import type { EvmNetworkName, EvmNetworkSettings } from './settings';

/** A rail is simulated when no real adapter sends on it: the partner would see SUCCESSFUL for money nothing moved. */
export type Rail = 'sepa' | Network;
export const RAILS: readonly Rail[] = ['sepa', ...NETWORKS];

export function isRail(value: string): value is Rail {
  return (RAILS as readonly string[]).includes(value);
}

/** EVM networks are real once their node is configured (EVM_RPC_URL_<NETWORK>); no adapter of this build sends the others for real. */
const EVM_RAILS: Readonly<Partial<Record<Rail, EvmNetworkName>>> = Object.fromEntries(EVM_NETWORKS.map((network) => [network, network]));

/** What one process knows of each rail: those in neither list it cannot tell (see railsKnownTo). */
export interface RailView {
  simulated: readonly Rail[];
  real: readonly Rail[];
}

/** What a worker with these EVM settings simulates and sends for real: the same decision as its adapters (worker/worker.ts). */
export function railsOfWorker(evmNetworks: Readonly<Partial<Record<EvmNetworkName, EvmNetworkSettings>>>): RailView {
  const isReal = (rail: Rail): boolean => {
    const network = EVM_RAILS[rail];
    return network !== undefined && evmNetworks[network] !== undefined;
  };
  return { simulated: RAILS.filter((rail) => !isReal(rail)), real: RAILS.filter(isReal) };
}

/** The API holds no node settings: an EVM network it has none for is the worker's to judge (at its own start). */
export function railsKnownTo(evmNetworks: Readonly<Partial<Record<EvmNetworkName, EvmNetworkSettings>>>, role: 'worker' | 'api'): RailView {
  const worker = railsOfWorker(evmNetworks);
  if (role === 'worker') return worker;
  return { simulated: worker.simulated.filter((rail) => EVM_RAILS[rail] === undefined), real: worker.real };
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
      `refusing to start: SIMULATED_RAILS names ${rail}, but ${rail} is real here (EVM_RPC_URL_${rail.toUpperCase()} is set): ` +
        `remove ${rail} from SIMULATED_RAILS, or unset EVM_RPC_URL_${rail.toUpperCase()} to simulate it`,
    );
  }
  return problems;
}
