import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { createPublicClient, createWalletClient, erc20Abi, http, parseEther, parseGwei } from 'viem';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { EvmChainAdapter } from '../../activities/adapters/chain/evm/evm-chain.adapter';
import { ChainIdentityMismatch } from '../../activities/adapters/chain/evm/evm-chain-identity';
import type { EvmNetworkConfig } from '../../activities/adapters/chain/evm/evm-network-config';
import { EvmSweeper } from '../../activities/adapters/chain/evm/evm-sweeper';
import { createLogger } from '../../core/logger';
import { ensureGethBuild } from '../../dev/geth-build';
import type { EvmNetwork } from '../../core/networks';
import {
  DEVELOPMENT_TOKEN_TRANSFER_GAS_LIMIT,
  HOT_WALLET_NATIVE,
  developmentChainDir,
  GETH_PID_FILE,
  readDevelopmentChain,
  startDevelopmentChain,
} from '../../dev/development-chain';
import type { RunningDevelopmentChain } from '../../dev/development-chain';
import { localChain } from '../../dev/evm-node';
import { freePort, isPortFree } from '../../dev/free-port';
import { eventually } from '../support/eventually';
import { runOpsCli } from '../support/ops-cli';
import { killProcessGroup, spawnTsx } from '../support/processes';
import { testStack } from '../support/stack';
import { TEST_EVM_ACCOUNT_KEY } from '../support/test-config';
import { endPool, openPool } from '../../db/pool';

/**
 * `npm start`'s local chain (dev/development-chain.ts): the real geth, built with Go into ~/.cache
 * on first use (minutes, once per machine), which is why this tier runs only when asked
 * (`npx jest --selectProjects devchain`). Each test makes a chain in a DATA_DIR of its own and reads
 * it with an independent viem client. It records the run's ethereum chain identity as geth's: run
 * it on its own, not beside the integration and e2e tiers (whose Hardhat nodes stand for ethereum).
 */

const log = createLogger('development-chain', 'warn');
const folders: string[] = [];
const running: RunningDevelopmentChain[] = [];
let pool: pg.Pool;

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'devchain-'));
  folders.push(dir);
  return dir;
}

async function start(
  dataDir: string,
  port: number,
  blockIntervalMs?: number,
  network: EvmNetwork = 'ethereum',
): Promise<RunningDevelopmentChain> {
  const chain = await startDevelopmentChain({ network, dataDir, port, log, ...(blockIntervalMs ? { blockIntervalMs } : {}) });
  running.push(chain);
  return chain;
}

async function stop(chain: RunningDevelopmentChain): Promise<void> {
  await chain.stop();
  running.splice(running.indexOf(chain), 1);
}

function reader(chain: { rpcUrl: string }) {
  return createPublicClient({ chain: localChain(31337, chain.rpcUrl), transport: http(chain.rpcUrl), cacheTime: 0 });
}

async function sendEth(chain: RunningDevelopmentChain, to: Address, ether: string) {
  const wallet = createWalletClient({
    chain: localChain(31337, chain.rpcUrl),
    transport: http(chain.rpcUrl),
    account: privateKeyToAccount(chain.hotWalletPrivateKey),
  });
  const hash = await wallet.sendTransaction({ to, value: parseEther(ether) });
  return reader(chain).waitForTransactionReceipt({ hash, pollingInterval: 100, timeout: 10_000 });
}

function networkOn(chain: RunningDevelopmentChain): EvmNetworkConfig {
  return {
    rpcUrl: chain.rpcUrl,
    chainId: chain.chainId,
    hotWalletPrivateKey: chain.hotWalletPrivateKey,
    requiredConfirmations: 1,
    replaceAfterMs: 60_000,
    usdcTokenAddress: chain.usdcAddress,
    maxFeePerGasCapWei: parseGwei('500'),
    tokenTransferGasLimit: BigInt(DEVELOPMENT_TOKEN_TRANSFER_GAS_LIMIT),
  };
}

function adapterOn(chain: RunningDevelopmentChain): EvmChainAdapter {
  return new EvmChainAdapter({ pool, networks: { ethereum: networkOn(chain) } });
}

function withdrawal() {
  return {
    withdrawalId: randomUUID(),
    currency: 'eth' as const,
    network: 'ethereum' as const,
    destination: privateKeyToAccount(generatePrivateKey()).address,
    amount: '0.5',
    memo: null,
  };
}

/** The ops CLI as it runs beside `npm start`: CHAIN=local-evm, the chain at EVM_NODE_PORT in DATA_DIR. */
function chainOps(args: string[], dataDir: string, port: number) {
  return runOpsCli(args, { DATA_DIR: dataDir, CHAIN: 'local-evm', EVM_NODE_PORT: String(port), HOST: '127.0.0.1' });
}

// A fresh machine builds geth here (about 5 minutes on 2 cores, more beside other builds), not
// inside the first test, whose time is the chain's.
beforeAll(async () => {
  await ensureGethBuild(undefined, log);
  pool = openPool({ connectionString: testStack().databaseUrl, max: 3 });
}, 20 * 60_000);

afterAll(async () => {
  for (const chain of [...running]) await chain.stop();
  if (pool) await endPool(pool);
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
});

describe("npm start's development chain", () => {
  it('keeps its chain across restarts: same genesis, its blocks, balances, hot wallet and test USDC; a block a second and one per transaction', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const first = await start(dataDir, port);
    expect(first.created).toBe(true);
    const client = reader(first);
    expect(await client.getChainId()).toBe(31337);

    // Quiet: blocks come by themselves, about one a second.
    const quietFrom = await client.getBlockNumber();
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    expect(Number((await client.getBlockNumber()) - quietFrom)).toBeGreaterThanOrEqual(2);

    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const receipt = await sendEth(first, recipient, '1.25');
    expect(receipt.status).toBe('success');
    const usdcOfHotWallet = await client.readContract({
      address: first.usdcAddress,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [first.hotWalletAddress],
    });
    expect(usdcOfHotWallet).toBe(1_000_000_000_000n);
    const headBefore = await client.getBlockNumber();
    await stop(first);
    expect(await isPortFree('127.0.0.1', port)).toBe(true);

    // Again, with no interval blocks: what it mines now, it mines for the transaction.
    const second = await start(dataDir, port, 3_600_000);
    const again = reader(second);
    expect(second.created).toBe(false);
    expect(second.genesisHash).toBe(first.genesisHash);
    expect((await again.getBlock({ blockNumber: 0n })).hash).toBe(first.genesisHash);
    expect(await again.getBlockNumber()).toBeGreaterThanOrEqual(headBefore);
    expect((await again.getTransactionReceipt({ hash: receipt.transactionHash })).blockHash).toBe(receipt.blockHash);
    expect(await again.getBalance({ address: recipient })).toBe(parseEther('1.25'));
    expect(second.hotWalletAddress).toBe(first.hotWalletAddress);
    expect(second.usdcAddress).toBe(first.usdcAddress);
    expect(
      await again.readContract({ address: second.usdcAddress, abi: erc20Abi, functionName: 'balanceOf', args: [second.hotWalletAddress] }),
    ).toBe(usdcOfHotWallet);
    const head = await again.getBlockNumber();
    const next = await sendEth(second, recipient, '0.75');
    expect(next.blockNumber).toBe(head + 1n);
    expect(await again.getBalance({ address: recipient })).toBe(parseEther('2'));
    await stop(second);
  }, 120_000);

  it('stops with the process that started it, however that ends (SIGKILL), and comes back with what it had', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const child = spawnTsx(testStack().dataDir, 'test/support/development-chain.main.ts', [], {
      env: { ...process.env, DEV_CHAIN_DATA_DIR: dataDir, DEV_CHAIN_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let ready: { rpcUrl: string; genesisHash: string; pid: number };
    try {
      ready = await new Promise((resolve, reject) => {
        let stdout = '';
        let stderr = '';
        child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk;
          const line = /^READY (.*)$/m.exec(stdout);
          if (line) resolve(JSON.parse(line[1]!) as { rpcUrl: string; genesisHash: string; pid: number });
        });
        child.once('exit', (code) => reject(new Error(`the chain's process exited (${code}): ${stderr}`)));
      });
      const recipient = privateKeyToAccount(generatePrivateKey()).address;
      const { marker, keys } = readDevelopmentChain(dataDir, 'ethereum')!;
      expect(marker.genesisHash).toBe(ready.genesisHash);
      const wallet = createWalletClient({
        chain: localChain(31337, ready.rpcUrl),
        transport: http(ready.rpcUrl),
        account: privateKeyToAccount(keys.hotWalletPrivateKey),
      });
      await reader(ready).waitForTransactionReceipt({
        hash: await wallet.sendTransaction({ to: recipient, value: parseEther('3') }),
        pollingInterval: 100,
      });
      const head = await reader(ready).getBlockNumber();
      // The process that started the chain (tsx's child, which runs the script), as npm start would die.
      process.kill(ready.pid, 'SIGKILL');
      // Its stdin gone, the chain's own process stops geth cleanly: the port frees.
      await eventually(async () => expect(await isPortFree('127.0.0.1', port)).toBe(true), { timeoutMs: 40_000 });

      const back = await start(dataDir, port);
      expect(back.genesisHash).toBe(ready.genesisHash);
      expect(await reader(back).getBlockNumber()).toBeGreaterThanOrEqual(head);
      expect(await reader(back).getBalance({ address: recipient })).toBe(parseEther('3'));
      await stop(back);
    } finally {
      await killProcessGroup(child);
    }
  }, 120_000);

  it('comes back at its last block even when geth itself is killed (SIGKILL): every block is written as it is mined', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const chain = await start(dataDir, port);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const receipt = await sendEth(chain, recipient, '4');
    // A few empty blocks after it, then geth is killed without a chance to flush anything.
    await eventually(async () => expect(await reader(chain).getBlockNumber()).toBeGreaterThanOrEqual(receipt.blockNumber + 3n));
    const head = await reader(chain).getBlockNumber();
    process.kill(Number(fs.readFileSync(path.join(chain.dir, GETH_PID_FILE), 'utf8')), 'SIGKILL');
    await stop(chain); // its parent ends with geth

    const back = await start(dataDir, port);
    expect(back.genesisHash).toBe(chain.genesisHash);
    expect(await reader(back).getBlockNumber()).toBeGreaterThanOrEqual(head);
    expect(await reader(back).getBalance({ address: recipient })).toBe(parseEther('4'));
    await stop(back);
  }, 120_000);

  it('chain fund sends test funds on it; after a reset the service refuses the new chain, saying why, until an operator adopts it', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const first = await start(dataDir, port);
    // A withdrawal on it: the network's chain identity is recorded (this run's first use of ethereum).
    const sent = await adapterOn(first).broadcast(withdrawal());
    await eventually(async () => expect(await adapterOn(first).confirmationState({ network: 'ethereum', ...sent })).toBe('CONFIRMED'));

    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const funded = await chainOps(['chain', 'fund', '--address', recipient, '--currency', 'eth', '--amount', '3'], dataDir, port);
    expect(funded).toMatchObject({ code: 0, output: { currency: 'eth', amount: '3', address: recipient } });
    const usdc = await chainOps(['chain', 'fund', '--address', recipient, '--currency', 'usdc', '--amount', '250'], dataDir, port);
    expect(usdc.code).toBe(0);
    expect(await reader(first).getBalance({ address: recipient })).toBe(parseEther('3'));
    expect(
      await reader(first).readContract({ address: first.usdcAddress, abi: erc20Abi, functionName: 'balanceOf', args: [recipient] }),
    ).toBe(250_000_000n);

    // The chain is reset: its folder deleted, a new chain made at the next start.
    await stop(first);
    fs.rmSync(developmentChainDir(dataDir, 'ethereum'), { recursive: true, force: true });
    const reset = await start(dataDir, port);
    expect(reset.created).toBe(true);
    expect(reset.genesisHash).not.toBe(first.genesisHash);

    const refused = await adapterOn(reset)
      .broadcast(withdrawal())
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(ChainIdentityMismatch);
    expect((refused as Error).message).toContain(`genesis ${first.genesisHash}; the node: chain id 31337, genesis ${reset.genesisHash}`);
    const identity = await chainOps(['chain', 'identity'], dataDir, port);
    expect(identity.output.networks).toContainEqual(
      expect.objectContaining({
        network: 'ethereum',
        node: expect.objectContaining({ origin: 'development chain' }) as object,
        matches: false,
      }),
    );

    const adopted = await chainOps(
      ['chain', 'adopt', '--network', 'ethereum', '--reason', 'the development chain was reset'],
      dataDir,
      port,
    );
    expect(adopted).toMatchObject({
      code: 0,
      output: {
        network: 'ethereum',
        previous: { genesisHash: first.genesisHash },
        adopted: { chainId: 31337, genesisHash: reset.genesisHash },
      },
    });
    const afterAdoption = await adapterOn(reset).broadcast(withdrawal());
    await eventually(async () =>
      expect(await adapterOn(reset).confirmationState({ network: 'ethereum', ...afterAdoption })).toBe('CONFIRMED'),
    );
    // chain fund follows the new chain (its marker was written anew).
    expect((await chainOps(['chain', 'fund', '--address', recipient, '--currency', 'eth', '--amount', '1'], dataDir, port)).code).toBe(0);
    expect(await reader(reset).getBalance({ address: recipient })).toBe(parseEther('1'));
    await stop(reset);
  }, 180_000);

  it('a deposit address swept before a restart signs its next sweep at the nonce the chain kept: nothing to restore', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    // The chain stands for polygon here (its own recorded identity): the reset test above records ethereum's.
    const sweeperOn = (chain: RunningDevelopmentChain) =>
      new EvmSweeper({ pool, networks: { polygon: networkOn(chain) }, accountKey: TEST_EVM_ACCOUNT_KEY });
    // A deposit index no fixture reaches, so its nonce sequence in Postgres is this test's alone.
    const index = 1_000_000 + Math.floor(Math.random() * 1_000_000);
    const sweep = async (chain: RunningDevelopmentChain) => {
      const sweeper = sweeperOn(chain);
      const signer = sweeper.depositSigner(index);
      const nonces = await sweeper.nonces('polygon', signer.address);
      expect(nonces.stored).toBe(nonces.chain);
      const record = await sweeper.signSweep('polygon', {
        sweepId: randomUUID(),
        signer,
        currency: 'pol',
        amountBaseUnits: parseEther('0.1'),
        hotWallet: chain.hotWalletAddress,
        fees: await sweeper.fees('polygon'),
      });
      await sweeper.send('polygon', record);
      await eventually(async () => expect((await sweeper.state('polygon', record)).state).toBe('CONFIRMED'));
      return record.nonce;
    };

    const first = await start(dataDir, port);
    await sendEth(first, sweeperOn(first).depositSigner(index).address, '1');
    expect(await sweep(first)).toBe(0n);
    await stop(first);

    const again = await start(dataDir, port);
    expect(await sweep(again)).toBe(1n);
    expect(await reader(again).getTransactionCount({ address: sweeperOn(again).depositSigner(index).address })).toBe(2);
    await stop(again);
  }, 120_000);

  it("polygon's chain is its own, beside ethereum's in one DATA_DIR: chain id 31338, its folder, its hot wallet funded in pol and test USDC; chain fund, a pol and a usdc withdrawal land on it", async () => {
    const dataDir = tempDir();
    const [ethereumPort, polygonPort] = [await freePort(), await freePort()];
    const ethereum = await start(dataDir, ethereumPort);
    const polygon = await start(dataDir, polygonPort, undefined, 'polygon');
    const client = createPublicClient({ chain: localChain(31338, polygon.rpcUrl), transport: http(polygon.rpcUrl), cacheTime: 0 });
    expect(await client.getChainId()).toBe(31338);
    expect(polygon).toMatchObject({ network: 'polygon', chainId: 31338, created: true });
    expect(polygon.genesisHash).not.toBe(ethereum.genesisHash);
    expect(polygon.hotWalletAddress).not.toBe(ethereum.hotWalletAddress);
    expect(developmentChainDir(dataDir, 'polygon')).not.toBe(developmentChainDir(dataDir, 'ethereum'));
    expect(readDevelopmentChain(dataDir, 'polygon')!.marker).toMatchObject({ chainId: 31338, genesisHash: polygon.genesisHash });
    expect(await client.getBalance({ address: polygon.hotWalletAddress })).toBe(parseEther(HOT_WALLET_NATIVE));
    expect(
      await client.readContract({
        address: polygon.usdcAddress,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [polygon.hotWalletAddress],
      }),
    ).toBe(1_000_000_000_000n);

    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const ops = (args: string[]) =>
      runOpsCli(args, {
        DATA_DIR: dataDir,
        CHAIN: 'local-evm',
        EVM_NODE_PORT: String(ethereumPort),
        EVM_NODE_PORT_POLYGON: String(polygonPort),
        HOST: '127.0.0.1',
      });
    // pol's default network is polygon; usdc names it.
    expect(await ops(['chain', 'fund', '--address', recipient, '--currency', 'pol', '--amount', '7'])).toMatchObject({
      code: 0,
      output: { network: 'polygon', currency: 'pol', amount: '7', address: recipient },
    });
    expect(
      (await ops(['chain', 'fund', '--address', recipient, '--currency', 'usdc', '--network', 'polygon', '--amount', '12'])).code,
    ).toBe(0);
    expect(await client.getBalance({ address: recipient })).toBe(parseEther('7'));
    expect(await client.readContract({ address: polygon.usdcAddress, abi: erc20Abi, functionName: 'balanceOf', args: [recipient] })).toBe(
      12_000_000n,
    );
    // Nothing of it reached ethereum's chain.
    expect(await reader(ethereum).getBalance({ address: recipient })).toBe(0n);
    expect(
      (await ops(['chain', 'fund', '--address', recipient, '--currency', 'eth', '--network', 'polygon', '--amount', '1'])).code,
    ).not.toBe(0);

    // An earlier test of this file swept on "polygon" over ethereum's chain, recording that one: adopted, as an operator would.
    const identity = await ops(['chain', 'identity']);
    const recorded = (identity.output.networks as Array<{ network: string; matches: boolean | null }>).find(
      (entry) => entry.network === 'polygon',
    );
    expect(recorded).toBeDefined();
    if (recorded!.matches === false)
      expect((await ops(['chain', 'adopt', '--network', 'polygon', '--reason', 'the polygon development chain of this test'])).code).toBe(
        0,
      );
    const adapter = new EvmChainAdapter({ pool, networks: { polygon: networkOn(polygon) } });
    const payout = { ...withdrawal(), currency: 'pol' as const, network: 'polygon' as const };
    const sent = await adapter.broadcast(payout);
    await eventually(async () => expect(await adapter.confirmationState({ network: 'polygon', ...sent })).toBe('CONFIRMED'));
    expect(await client.getBalance({ address: payout.destination })).toBe(parseEther('0.5'));
    // And the token: to a new holder, which costs these chains more gas than mainnet (DEVELOPMENT_TOKEN_TRANSFER_GAS_LIMIT).
    const tokenPayout = { ...withdrawal(), currency: 'usdc' as const, network: 'polygon' as const, amount: '12.5' };
    const tokenSent = await adapter.broadcast(tokenPayout);
    await eventually(async () => expect(await adapter.confirmationState({ network: 'polygon', ...tokenSent })).toBe('CONFIRMED'));
    expect(
      await client.readContract({
        address: polygon.usdcAddress,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [tokenPayout.destination],
      }),
    ).toBe(12_500_000n);

    // Both come back as they were.
    await stop(polygon);
    const again = await start(dataDir, polygonPort, undefined, 'polygon');
    expect(again).toMatchObject({ created: false, genesisHash: polygon.genesisHash, hotWalletAddress: polygon.hotWalletAddress });
    expect(await client.getBalance({ address: payout.destination })).toBe(parseEther('0.5'));
    await stop(again);
    await stop(ethereum);
  }, 180_000);
});
