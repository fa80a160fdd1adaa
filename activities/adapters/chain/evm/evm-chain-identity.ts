import type pg from 'pg';
import type { Clock } from '../../../../core/clock';
import type { Logger } from '../../../../core/logger';
import { recordChainIdentityAtFirstUse } from '../../../../db/queries/evm-chain-identity.queries';
import type { ChainIdentity, RecordedChainIdentity } from '../../../../db/queries/evm-chain-identity.queries';

/**
 * Which chain an EVM network is on: chain id and genesis hash, recorded at first use and checked before every broadcast,
 * confirmation and deposit batch (the chain id alone does not tell a reset development chain). A node on another chain is
 * refused retryably, so nothing is sent, settled or credited against it and nothing released; the work goes on once the node
 * is back on the recorded chain, or an operator adopts the new one (`npm run ops -- chain adopt`).
 */

/** The node is on another chain than the one recorded for its network. Retryable: it is not a definite answer about any payment. */
export class ChainIdentityMismatch extends Error {
  override readonly name = 'ChainIdentityMismatch';

  constructor(
    readonly network: string,
    readonly recorded: RecordedChainIdentity,
    readonly found: ChainIdentity,
    action: string,
  ) {
    super(
      `refusing to ${action} on ${network}: its node is on another chain than the one recorded for ${network} ` +
        `(recorded ${recorded.recordedAt.toISOString()}: chain id ${recorded.chainId}, genesis ${recorded.genesisHash}; ` +
        `the node: chain id ${found.chainId}, genesis ${found.genesisHash}). A chain that was reset does not hold what the ledger remembers. ` +
        `Point EVM_RPC_URL_${network.toUpperCase()} at the recorded chain or restore the node's data; if the change is deliberate, ` +
        `an operator adopts the new chain: npm run ops -- chain adopt --network ${network} --reason TEXT`,
    );
  }
}

/** A network's last verdict, for /health/ready. */
export type ChainIdentityVerdict = { network: string; state: 'ok' } | { network: string; state: 'refused'; reason: string; since: string };

/** Reads a node's identity: its chain id and the hash of its block 0 (lower case). */
export interface ChainIdentitySource {
  getChainId(): Promise<number>;
  genesisHash(): Promise<string>;
}

/** One per worker, so /health/ready shows what any user last found; each check reads the node afresh (a replaced node is noticed). */
export class EvmChainIdentityGuard {
  private readonly verdicts = new Map<string, ChainIdentityVerdict>();

  constructor(private readonly deps: { pool: pg.Pool; clock: Clock; log?: Logger | undefined }) {}

  /** The node's chain must be the network's recorded one (recorded now at first use); else ChainIdentityMismatch, naming `action`. */
  async verify(network: string, node: ChainIdentitySource, action: string): Promise<RecordedChainIdentity> {
    const [chainId, genesisHash] = await Promise.all([node.getChainId(), node.genesisHash()]);
    const found: ChainIdentity = { chainId, genesisHash: genesisHash.toLowerCase() };
    const recorded = await recordChainIdentityAtFirstUse(this.deps.pool, network, found, this.deps.clock.now());
    if (recorded.chainId === found.chainId && recorded.genesisHash === found.genesisHash) {
      if (this.verdicts.get(network)?.state === 'refused')
        this.deps.log?.info(`the ${network} node is on its recorded chain again (genesis ${found.genesisHash}): no longer refused`);
      this.verdicts.set(network, { network, state: 'ok' });
      return recorded;
    }
    const mismatch = new ChainIdentityMismatch(network, recorded, found, action);
    const previous = this.verdicts.get(network);
    const reason = `on chain id ${found.chainId}, genesis ${found.genesisHash}; recorded: chain id ${recorded.chainId}, genesis ${recorded.genesisHash}`;
    // Said once per change, not at every retry: each refused operation carries the whole message itself.
    if (previous?.state !== 'refused' || previous.reason !== reason) this.deps.log?.error(mismatch.message);
    this.verdicts.set(network, {
      network,
      state: 'refused',
      reason,
      since: previous?.state === 'refused' && previous.reason === reason ? previous.since : this.deps.clock.now().toISOString(),
    });
    throw mismatch;
  }

  /** The networks whose node was last found on another chain than the recorded one. */
  refused(): Array<Extract<ChainIdentityVerdict, { state: 'refused' }>> {
    return [...this.verdicts.values()].filter((verdict) => verdict.state === 'refused');
  }
}
