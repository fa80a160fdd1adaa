import { createPublicClient, createWalletClient, http } from 'viem';
import type { Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { localChain } from '../../dev/evm-node';
import type { RunningEvmNode } from '../../dev/evm-node';
import { testUsdcContract } from '../../dev/evm/test-usdc.contract';

/**
 * Makes the node's test USDC refuse every transfer to or from the address (its owner's
 * setBlocked), as USDC's blacklist does: a transfer there reverts on chain. Resolves once mined.
 */
export async function blockOnTestToken(node: RunningEvmNode, address: Address): Promise<void> {
  const chain = localChain(node.chainId, node.rpcUrl);
  const owner = createWalletClient({ chain, transport: http(node.rpcUrl), account: privateKeyToAccount(node.usdcOwnerPrivateKey) });
  const hash = await owner.writeContract({
    address: node.usdcAddress,
    abi: (await testUsdcContract()).abi,
    functionName: 'setBlocked',
    args: [address, true],
  });
  const receipt = await createPublicClient({ chain, transport: http(node.rpcUrl) }).waitForTransactionReceipt({
    hash,
    pollingInterval: 50,
  });
  if (receipt.status !== 'success') throw new Error('blocking an address on the test USDC failed');
}
