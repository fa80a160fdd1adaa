import { createLogger } from '../../core/logger';
import { startDevelopmentChain } from '../../dev/development-chain';

/**
 * Starts `npm start`'s development chain in a process of its own, as `npm start` does, prints
 * `READY {rpcUrl, genesisHash, pid}` (its own pid: tsx runs the script in a child of its own) and
 * waits to be killed: test/devchain kills it with SIGKILL to show
 * the chain stops with its parent, cleanly, and comes back with what it had.
 * Input: DEV_CHAIN_DATA_DIR and DEV_CHAIN_PORT.
 */
async function main(): Promise<void> {
  const chain = await startDevelopmentChain({
    network: 'ethereum',
    dataDir: process.env.DEV_CHAIN_DATA_DIR!,
    port: Number(process.env.DEV_CHAIN_PORT),
    log: createLogger('development-chain', 'warn'),
  });
  process.stdout.write(`READY ${JSON.stringify({ rpcUrl: chain.rpcUrl, genesisHash: chain.genesisHash, pid: process.pid })}\n`);
  await new Promise(() => undefined);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
