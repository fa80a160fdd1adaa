import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { createPublicClient, erc20Abi, http, parseEther, parseUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createLogger } from '../../core/logger';
import { recordChainIdentityAtFirstUse } from '../../db/queries/evm-chain-identity.queries';
import { DEVELOPMENT_CHAIN_FILES, developmentChainDir } from '../../dev/development-chain';
import type { DevelopmentChainKeys, DevelopmentChainMarker } from '../../dev/development-chain';
import { localChain, startEvmNode } from '../../dev/evm-node';
import type { RunningEvmNode } from '../../dev/evm-node';
import { adoptChain } from '../../operations/operator/chain-adoption';
import { OperatorActionRefused } from '../../operations/operator/operator-refusal';
import { createTestPartner, openTestOrm } from '../support/fixtures';
import { runOpsCli } from '../support/ops-cli';
import { testStack } from '../support/stack';
import { endPool, openPool } from '../../db/pool';

/**
 * `npm run ops -- chain …` on Hardhat nodes (no Go needed): `chain fund` sends only on the chain a
 * DATA_DIR marker names, which `npm start` writes when it makes its chain (dev/development-chain.ts);
 * here the test writes one for a Hardhat node standing in for that chain (`standIn`), and the
 * funds are read by an independent viem client. Other nodes (chain id 1 standing for mainnet,
 * chain 31337 with another genesis) are refused. `chain identity` and `chain adopt` read and
 * replace a network's recorded chain; adoption's rules run on polygon inside transactions that
 * are rolled back, so the run's other files keep their recorded chains. The geth chain itself:
 * test/devchain.
 */

let standIn: RunningEvmNode;
let mainnetLike: RunningEvmNode;
let otherGenesis: RunningEvmNode;
let pool: pg.Pool;
const folders: string[] = [];

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chain-ops-'));
  folders.push(dir);
  return dir;
}

/** A DATA_DIR whose development-chain marker names the node's chain, with its USDC owner as the faucet, as npm start writes it. */
async function dataDirStandingFor(node: RunningEvmNode): Promise<string> {
  const dataDir = tempDir();
  const dir = developmentChainDir(dataDir, 'ethereum');
  fs.mkdirSync(dir, { recursive: true });
  const genesis = await createPublicClient({ chain: localChain(node.chainId, node.rpcUrl), transport: http(node.rpcUrl) }).getBlock({
    blockNumber: 0n,
  });
  const marker: DevelopmentChainMarker = {
    chainId: 31337,
    genesisHash: genesis.hash,
    hotWalletAddress: node.hotWalletAddress,
    usdcAddress: node.usdcAddress,
    faucetAddress: privateKeyToAccount(node.usdcOwnerPrivateKey).address,
    createdAt: new Date().toISOString(),
    geth: 'stand-in',
  };
  const keys: DevelopmentChainKeys = { hotWalletPrivateKey: node.hotWalletPrivateKey, faucetPrivateKey: node.usdcOwnerPrivateKey };
  fs.writeFileSync(path.join(dir, DEVELOPMENT_CHAIN_FILES.marker), JSON.stringify(marker));
  fs.writeFileSync(path.join(dir, DEVELOPMENT_CHAIN_FILES.keys), JSON.stringify(keys), { mode: 0o600 });
  return dataDir;
}

/** The ops CLI with npm start's defaults (CHAIN=local-evm, its chain at EVM_NODE_PORT) unless `node` is configured as ethereum's. */
function chainOps(args: string[], options: { dataDir: string; localPort?: string; node?: RunningEvmNode }) {
  const configured: Record<string, string> = options.node
    ? {
        EVM_RPC_URL_ETHEREUM: options.node.rpcUrl,
        EVM_CHAIN_ID_ETHEREUM: String(options.node.chainId),
        EVM_HOT_WALLET_KEY_ETHEREUM: options.node.hotWalletPrivateKey,
        EVM_USDC_ADDRESS_ETHEREUM: options.node.usdcAddress,
      }
    : {};
  return runOpsCli(args, { DATA_DIR: options.dataDir, CHAIN: 'local-evm', EVM_NODE_PORT: options.localPort ?? '1', ...configured });
}

function portOf(node: RunningEvmNode): string {
  return new URL(node.rpcUrl).port;
}

async function auditRows(action: string): Promise<Array<{ details: Record<string, unknown>; reason: string | null }>> {
  const result = await pool.query<{ details: Record<string, unknown>; reason: string | null }>(
    'select details, reason from operator_action where action = $1 order by created_at',
    [action],
  );
  return result.rows;
}

beforeAll(async () => {
  const log = createLogger('evm-node', 'warn');
  [standIn, mainnetLike, otherGenesis] = await Promise.all([
    startEvmNode({ dataDir: tempDir(), log }),
    startEvmNode({ dataDir: tempDir(), log, chainId: 1 }),
    startEvmNode({ dataDir: tempDir(), log, genesisDate: new Date('2026-03-01T00:00:00Z') }),
  ]);
  pool = openPool({ connectionString: testStack().databaseUrl, max: 3 });
}, 60_000);

afterAll(async () => {
  if (pool) await endPool(pool);
  await Promise.all([standIn?.stop(), mainnetLike?.stop(), otherGenesis?.stop()]);
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
});

/** The checksummed address with its first letter's case flipped. */
function badChecksum(address: string): string {
  const at = address.slice(2).search(/[a-fA-F]/) + 2;
  const letter = address[at]!;
  return address.slice(0, at) + (letter === letter.toUpperCase() ? letter.toLowerCase() : letter.toUpperCase()) + address.slice(at + 1);
}

describe('chain fund', () => {
  it('sends eth and usdc from the faucet of the DATA_DIR chain: they arrive on chain, once each, audited', async () => {
    const dataDir = await dataDirStandingFor(standIn);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const reader = createPublicClient({
      chain: localChain(standIn.chainId, standIn.rpcUrl),
      transport: http(standIn.rpcUrl),
      cacheTime: 0,
    });
    const before = (await auditRows('chain-fund')).length;

    // The recipient as a partner would paste it: lower case.
    const eth = await chainOps(
      ['chain', 'fund', '--address', recipient.toLowerCase(), '--currency', 'eth', '--amount', '2.50', '--reason', 'sandbox'],
      {
        dataDir,
        localPort: portOf(standIn),
      },
    );
    expect(eth).toEqual({
      code: 0,
      output: {
        network: 'ethereum',
        currency: 'eth',
        amount: '2.5',
        address: recipient,
        transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) as string,
        blockNumber: expect.stringMatching(/^\d+$/) as string,
      },
    });
    const usdc = await chainOps(['chain', 'fund', '--address', recipient, '--currency', 'usdc', '--amount', '1234.567891'], {
      dataDir,
      localPort: portOf(standIn),
    });
    expect(usdc.code).toBe(0);

    expect(await reader.getBalance({ address: recipient })).toBe(parseEther('2.5'));
    expect(await reader.readContract({ address: standIn.usdcAddress, abi: erc20Abi, functionName: 'balanceOf', args: [recipient] })).toBe(
      parseUnits('1234.567891', 6),
    );
    const receipt = await reader.getTransactionReceipt({ hash: eth.output.transactionHash });
    expect(receipt).toMatchObject({
      status: 'success',
      to: recipient.toLowerCase(),
      from: privateKeyToAccount(standIn.usdcOwnerPrivateKey).address.toLowerCase(),
    });

    const audit = (await auditRows('chain-fund')).slice(before);
    expect(audit).toEqual([
      {
        reason: 'sandbox',
        details: expect.objectContaining({
          currency: 'eth',
          amount: '2.5',
          address: recipient,
          transactionHash: eth.output.transactionHash,
        }),
      },
      {
        reason: null,
        details: expect.objectContaining({ currency: 'usdc', amount: '1234.567891', transactionHash: usdc.output.transactionHash }),
      },
    ]);
  });

  it('is refused on any chain but the DATA_DIR one: none there, chain id 1, or chain 31337 with another genesis; nothing sent, nothing audited', async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const before = (await auditRows('chain-fund')).length;
    const fund = ['chain', 'fund', '--address', recipient, '--currency', 'eth', '--amount', '1'];

    const noChain = await chainOps(fund, { dataDir: tempDir(), localPort: portOf(standIn) });
    expect(noChain.code).toBe(1);
    expect(noChain.output).toMatchObject({ error: 'refused', reason: 'not-development-chain' });
    expect(noChain.output.message).toContain('holds none');

    const dataDir = await dataDirStandingFor(standIn);
    const mainnet = await chainOps(fund, { dataDir, node: mainnetLike });
    expect(mainnet.code).toBe(1);
    expect(mainnet.output).toMatchObject({ error: 'refused', reason: 'not-development-chain' });
    expect(mainnet.output.message).toContain('is on chain id 1, genesis');

    const reset = await chainOps(fund, { dataDir, localPort: portOf(otherGenesis) });
    expect(reset.code).toBe(1);
    expect(reset.output).toMatchObject({ error: 'refused', reason: 'not-development-chain' });
    expect(reset.output.message).toContain('is on chain id 31337, genesis');

    for (const node of [standIn, mainnetLike, otherGenesis]) {
      const reader = createPublicClient({ chain: localChain(node.chainId, node.rpcUrl), transport: http(node.rpcUrl) });
      expect(await reader.getBalance({ address: recipient })).toBe(0n);
    }
    expect(await auditRows('chain-fund')).toHaveLength(before);
  });

  it('takes bounded, well-formed input only', async () => {
    const dataDir = await dataDirStandingFor(standIn);
    const fund = (address: string, currency: string, amount: string) =>
      chainOps(['chain', 'fund', '--address', address, '--currency', currency, '--amount', amount], {
        dataDir,
        localPort: portOf(standIn),
      });
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const mistakes: Array<[string, string, string, string]> = [
      [recipient, 'eth', '1000.000000000000000001', 'at most 1000 eth'],
      [recipient, 'usdc', '0.0000001', 'more than the 6 decimals usdc has'],
      [recipient, 'eth', '0', 'more than 0'],
      [recipient, 'eth', '1e3', 'plain decimal'],
      [recipient, 'eth', '-1', '--amount'],
      [recipient, 'doge', '1', '--currency'],
      ['0x1234', 'eth', '1', '--address must be an EVM address'],
      // Mixed case that is not the checksum (one letter's case flipped): a typo, refused.
      [badChecksum(recipient), 'eth', '1', '--address must be an EVM address'],
    ];
    for (const [address, currency, amount, expected] of mistakes) {
      const answer = await fund(address, currency, amount);
      expect({ amount, code: answer.code, error: answer.output.error }).toEqual({ amount, code: 2, error: 'invalid-request' });
      expect(answer.output.message).toContain(expected);
    }
    // btc is funded on npm start's regtest chain only, and this data folder has none.
    const btc = await fund('bcrt1q72xweewm4uvlkgzevmewy0dk3mmpymgrn6d2h0', 'btc', '1');
    expect(btc.code).toBe(1);
    expect(btc.output).toMatchObject({ error: 'refused', reason: 'not-development-chain' });
    expect(btc.output.message).toContain('local regtest chains only');
  });
});

describe('chain identity and chain adopt', () => {
  it('chain info says of each network whether it is real, its node, chain id, genesis and hot wallet; a configured URL is not shown', async () => {
    const genesis = await createPublicClient({
      chain: localChain(standIn.chainId, standIn.rpcUrl),
      transport: http(standIn.rpcUrl),
    }).getBlock({
      blockNumber: 0n,
    });
    const development = await chainOps(['chain', 'info'], { dataDir: await dataDirStandingFor(standIn), localPort: portOf(standIn) });
    expect(development.code).toBe(0);
    expect(development.output.networks).toEqual([
      { network: 'bitcoin', family: 'utxo', real: false, node: null },
      { network: 'dogecoin', family: 'utxo', real: false, node: null },
      {
        network: 'ethereum',
        family: 'evm',
        real: true,
        node: {
          kind: expect.stringContaining("npm start's development chain") as string,
          rpcUrl: `http://127.0.0.1:${portOf(standIn)}`,
          configuredChainId: 31337,
          chainId: 31337,
          genesisHash: genesis.hash,
        },
        hotWalletAddress: standIn.hotWalletAddress,
      },
      { network: 'litecoin', family: 'utxo', real: false, node: null },
      // No polygon chain in this DATA_DIR.
      { network: 'polygon', family: 'evm', real: false, node: null },
    ]);

    const configured = await chainOps(['chain', 'info'], { dataDir: tempDir(), node: standIn });
    const ethereum = (configured.output.networks as Array<{ network: string; node: Record<string, unknown> | null }>).find(
      (entry) => entry.network === 'ethereum',
    );
    expect(ethereum?.node).toEqual({
      kind: 'configured (EVM_RPC_URL)',
      rpcUrl: null,
      configuredChainId: 31337,
      chainId: 31337,
      genesisHash: genesis.hash,
    });
    expect(JSON.stringify(configured.output)).not.toContain(standIn.rpcUrl);

    const unreachable = await chainOps(['chain', 'info'], { dataDir: await dataDirStandingFor(standIn), localPort: '1' });
    expect(unreachable.output.networks).toContainEqual(
      expect.objectContaining({
        network: 'ethereum',
        real: true,
        node: expect.objectContaining({ unreachable: expect.any(String) as string }) as object,
      }),
    );
  });

  it("chain identity shows each network's recorded chain beside its node's; adopting the recorded chain is refused", async () => {
    const genesis = await createPublicClient({
      chain: localChain(standIn.chainId, standIn.rpcUrl),
      transport: http(standIn.rpcUrl),
    }).getBlock({
      blockNumber: 0n,
    });
    // What any of the run's ethereum nodes records (they share this genesis).
    await recordChainIdentityAtFirstUse(pool, 'ethereum', { chainId: 31337, genesisHash: genesis.hash }, new Date());
    const dataDir = tempDir();

    const shown = await chainOps(['chain', 'identity'], { dataDir, node: standIn });
    expect(shown.code).toBe(0);
    expect(shown.output.networks).toContainEqual({
      network: 'ethereum',
      recorded: expect.objectContaining({ chainId: 31337, genesisHash: genesis.hash }) as object,
      node: { origin: 'configured', chainId: 31337, genesisHash: genesis.hash },
      matches: true,
    });
    const onOther = await chainOps(['chain', 'identity'], { dataDir, node: otherGenesis });
    expect(onOther.output.networks).toContainEqual(expect.objectContaining({ network: 'ethereum', matches: false }));

    const adopt = await chainOps(['chain', 'adopt', '--network', 'ethereum', '--reason', 'test'], { dataDir, node: standIn });
    expect(adopt.code).toBe(1);
    expect(adopt.output).toMatchObject({ error: 'refused', reason: 'already-the-recorded-chain' });
    const withoutReason = await chainOps(['chain', 'adopt', '--network', 'ethereum'], { dataDir, node: otherGenesis });
    expect(withoutReason.code).toBe(2);
  });

  /** Runs `work` in a transaction that is rolled back whatever it does, and answers what it returned or threw. */
  async function rolledBack<T>(work: (em: EntityManager) => Promise<T>): Promise<{ value: T } | { error: unknown }> {
    const orm = await openTestOrm(2);
    const undo = new Error('roll back');
    let outcome: { value: T } | { error: unknown } | undefined;
    try {
      await orm.em.fork().transactional(async (em) => {
        try {
          outcome = { value: await work(em) };
        } catch (error) {
          outcome = { error };
        }
        throw undo;
      });
    } catch (error) {
      if (error !== undo) throw error;
    } finally {
      await orm.close(true);
    }
    return outcome!;
  }

  it('adoption replaces the recorded chain and moves the hot wallet on; refused while a withdrawal signed there is open, or when the wallet would reuse nonces', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
    const next = { chainId: 137, genesisHash: `0x${'ab'.repeat(32)}` };
    const node = (count: bigint) => ({ identity: next, hotWalletAddress: wallet, transactionCount: () => Promise.resolve(count) });
    const seedWallet = async (em: EntityManager, nextNonce: number) => {
      await em.execute(
        `insert into evm_chain_identity (network, id, chain_id, genesis_hash, recorded_at) values ('polygon', ?, 137, ?, now())
                        on conflict (network) do update set genesis_hash = excluded.genesis_hash, chain_id = 137`,
        [randomUUID(), `0x${'cd'.repeat(32)}`],
      );
      await em.execute(`insert into evm_wallet_nonce (network, address, next_nonce) values ('polygon', ?, ?)`, [wallet, nextNonce]);
    };

    const adopted = await rolledBack(async (em) => {
      await seedWallet(em, 3);
      const adoption = await adoptChain(em, 'polygon', node(7n), 'an operator', new Date());
      const [row] = await em.execute<Array<{ next_nonce: string }>>('select next_nonce::text from evm_wallet_nonce where address = ?', [
        wallet,
      ]);
      return { adoption, nextNonce: row!.next_nonce };
    });
    expect(adopted).toEqual({
      value: {
        adoption: expect.objectContaining({
          previous: expect.objectContaining({ genesisHash: `0x${'cd'.repeat(32)}` }) as object,
          adopted: expect.objectContaining({
            network: 'polygon',
            chainId: 137,
            genesisHash: next.genesisHash,
            adoptedBy: 'an operator',
          }) as object,
          walletNonce: { address: wallet, from: '3', to: '7' },
        }) as object,
        nextNonce: '7',
      },
    });

    const behind = await rolledBack(async (em) => {
      await seedWallet(em, 3);
      return adoptChain(em, 'polygon', node(1n), 'an operator', new Date());
    });
    expect('error' in behind && behind.error).toBeInstanceOf(OperatorActionRefused);
    expect('error' in behind && (behind.error as OperatorActionRefused).reason).toBe('wallet-nonces-behind');

    const orm = await openTestOrm(2);
    const partner = await createTestPartner(orm).finally(() => orm.close(true));
    const open = randomUUID();
    const inFlight = await rolledBack(async (em) => {
      await seedWallet(em, 3);
      await em.execute(
        `insert into crypto_withdrawal (id, partner_id, currency, network, amount, fee, destination, wallet_type, receiver_type,
                                        beneficiary_name, status, stage, amount_eur)
         values (?, ?, 'pol', 'polygon', 1, 0.01, ?, 'CUSTODIAL', 'NATURAL', 'Jan Kowalski', 'IN_PROGRESS', 'BROADCAST', 1)`,
        [open, partner.partnerId, wallet],
      );
      await em.execute(
        `insert into evm_transaction (withdrawal_id, network, chain_id, from_address, nonce, currency, destination, amount_base_units, created_at)
         values (?, 'polygon', 137, ?, 3, 'pol', ?, 1, now())`,
        [open, wallet, wallet],
      );
      return adoptChain(em, 'polygon', node(7n), 'an operator', new Date());
    });
    expect('error' in inFlight && (inFlight.error as OperatorActionRefused).reason).toBe('withdrawals-in-flight');
    expect('error' in inFlight && (inFlight.error as Error).message).toContain(open);
  });
});
