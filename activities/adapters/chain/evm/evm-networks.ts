import type { EvmNetwork } from '../../../../core/networks';
import type { EvmChainIdentityGuard } from './evm-chain-identity';
import type { EvmNetworkConfig } from './evm-network-config';
import { checkChainId, runtimeOf } from './evm-network-runtime';
import type { EvmNetworkRuntime } from './evm-network-runtime';
import { rpcUrlForms } from './evm-rpc-redaction';

/** One adapter's configured EVM networks: their runtimes, their RPC URLs' forms (kept out of errors) and the check before each use. */
export class EvmNetworks {
  private readonly runtimes = new Map<EvmNetwork, EvmNetworkRuntime>();
  /** Every form of every configured RPC URL, for evm-rpc-redaction.ts. */
  readonly rpcUrls = new Set<string>();

  constructor(
    networks: Partial<Record<EvmNetwork, EvmNetworkConfig>>,
    private readonly identityGuard: EvmChainIdentityGuard,
  ) {
    for (const [network, config] of Object.entries(networks) as Array<[EvmNetwork, EvmNetworkConfig | undefined]>) {
      if (!config) continue;
      this.runtimes.set(network, runtimeOf(network, config));
      for (const form of rpcUrlForms(config.rpcUrl)) this.rpcUrls.add(form);
    }
  }

  list(): EvmNetwork[] {
    return [...this.runtimes.keys()];
  }

  /** The runtime as configured, unchecked: for what needs no node (addresses, currencies). */
  configured(network: EvmNetwork): EvmNetworkRuntime | undefined {
    return this.runtimes.get(network);
  }

  /** The runtime once its node is checked: the configured chain id (once), and the recorded chain (every time, refusing `action`). */
  async checked(runtime: EvmNetworkRuntime, action: string): Promise<EvmNetworkRuntime> {
    runtime.chainChecked ??= checkChainId(runtime).catch((error: unknown) => {
      runtime.chainChecked = undefined; // an unreachable node is asked again next time
      throw error;
    });
    await runtime.chainChecked;
    await this.identityGuard.verify(
      runtime.network,
      {
        getChainId: () => runtime.client.getChainId(),
        genesisHash: async () => (await runtime.client.getBlock({ blockNumber: 0n })).hash,
      },
      action,
    );
    return runtime;
  }
}
