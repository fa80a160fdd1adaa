import fs from 'node:fs';
import path from 'node:path';
import type { Abi, Hex } from 'viem';

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

const SOURCE_FILE = 'test-usdc.sol';
const CONTRACT_NAME = 'TestUsdc';

let compiled: Promise<CompiledContract> | undefined;

/**
 * The test USDC (dev/evm/test-usdc.sol) compiled by solc-js, the compiler the `solc` package pins
 * (0.8.26): compiled from source on first use, so there is no artifact to drift from the source.
 * Takes about two seconds, once per process; solc itself is loaded only then, since loading it
 * takes 0.6 s that every operator command would otherwise pay.
 */
export function testUsdcContract(): Promise<CompiledContract> {
  compiled ??= compile();
  return compiled;
}

async function compile(): Promise<CompiledContract> {
  const { default: solc } = await import('solc');
  const input = {
    language: 'Solidity',
    sources: { [SOURCE_FILE]: { content: fs.readFileSync(path.join(__dirname, SOURCE_FILE), 'utf8') } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) throw new Error(`${SOURCE_FILE} does not compile:\n${errors.map((error) => error.formattedMessage).join('\n')}`);
  const contract = output.contracts?.[SOURCE_FILE]?.[CONTRACT_NAME];
  if (!contract) throw new Error(`solc produced no ${CONTRACT_NAME}`);
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}
