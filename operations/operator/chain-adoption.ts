import type { EntityManager } from '@mikro-orm/postgresql';
import { adoptChainIdentity, lockChainIdentity } from '../../db/queries/evm-chain-identity.queries';
import type { ChainIdentity, RecordedChainIdentity } from '../../db/queries/evm-chain-identity.queries';
import { OperatorActionRefused } from './operator-refusal';

/** What adoption asks of the network's node: nothing but reads. */
export interface AdoptedNode {
  identity: ChainIdentity;
  /** The hot wallet the service sends from on this chain (lower case). */
  hotWalletAddress: string;
  /** The address's count of transactions on this chain, pending included. */
  transactionCount(address: string): Promise<bigint>;
}

export interface ChainAdoption {
  previous: RecordedChainIdentity | undefined;
  adopted: RecordedChainIdentity;
  /** The hot wallet's nonce sequence, moved to where this chain has it; undefined when it had none yet, or it already agreed. */
  walletNonce: { address: string; from: string; to: string } | undefined;
}

const IN_FLIGHT_SHOWN = 20;

/**
 * `chain adopt`: the node's chain becomes the network's recorded chain (the watcher restarts at its head; uncredited
 * deposits of the old chain end UNSUCCESSFUL). Refused while a withdrawal signed there is not final (sent again, it could
 * land twice), or while the hot wallet's transaction count on the new chain is behind its stored nonces (they would be
 * reused); otherwise the wallet's sequence moves to the new chain's count.
 */
export async function adoptChain(
  em: EntityManager,
  network: string,
  node: AdoptedNode,
  adoptedBy: string,
  now: Date,
): Promise<ChainAdoption> {
  const previous = await lockChainIdentity(em, network);
  if (previous && previous.chainId === node.identity.chainId && previous.genesisHash === node.identity.genesisHash.toLowerCase())
    throw new OperatorActionRefused(
      'already-the-recorded-chain',
      `the ${network} node is on the recorded chain already (chain id ${previous.chainId}, genesis ${previous.genesisHash}): nothing to adopt`,
    );
  const inFlight = await em.execute<Array<{ withdrawal_id: string }>>(
    `select t.withdrawal_id from evm_transaction t join crypto_withdrawal w on w.id = t.withdrawal_id
      where t.network = ? and w.status not in ('SUCCESSFUL', 'UNSUCCESSFUL') order by t.created_at limit ?`,
    [network, IN_FLIGHT_SHOWN + 1],
  );
  if (inFlight.length > 0)
    throw new OperatorActionRefused(
      'withdrawals-in-flight',
      `withdrawals signed on the recorded ${network} chain are not final (${inFlight
        .slice(0, IN_FLIGHT_SHOWN)
        .map((row) => row.withdrawal_id)
        .join(', ')}${inFlight.length > IN_FLIGHT_SHOWN ? ', …' : ''}): resolve each from that chain's evidence first ` +
        '(npm run ops -- operation show ID, then operation resolve); sent again on another chain, a transaction could land twice',
    );
  const wallet = node.hotWalletAddress.toLowerCase();
  const [sequence] = await em.execute<Array<{ next_nonce: string }>>(
    'select next_nonce::text from evm_wallet_nonce where network = ? and address = ? for update',
    [network, wallet],
  );
  let walletNonce: ChainAdoption['walletNonce'];
  if (sequence) {
    const count = await node.transactionCount(wallet);
    const stored = BigInt(sequence.next_nonce);
    if (count < stored)
      throw new OperatorActionRefused(
        'wallet-nonces-behind',
        `hot wallet ${wallet} signed nonces up to ${stored - 1n} on the recorded ${network} chain and is at ${count} on this one: ` +
          `its next transactions would reuse stored nonces. Give the adopted chain a hot wallet key of its own (EVM_HOT_WALLET_KEY_${network.toUpperCase()}), then adopt`,
      );
    if (count > stored) {
      await em.execute('update evm_wallet_nonce set next_nonce = ? where network = ? and address = ?', [count.toString(), network, wallet]);
      walletNonce = { address: wallet, from: stored.toString(), to: count.toString() };
    }
  }
  const adopted = await adoptChainIdentity(em, network, node.identity, adoptedBy, now);
  return { previous, adopted, walletNonce };
}
