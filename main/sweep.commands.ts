import { z } from 'zod';
import { findEvmSweeps } from '../db/queries/evm-sweep.queries';
import { findUtxoSweeps } from '../db/queries/utxo-sweep.queries';
import type { Command } from './ops-command';
import { command, limitFlag, uuidFlag } from './ops-command';

/** The sweep commands of the operator CLI (main/ops.cli.ts): what moved from deposit addresses to the hot wallets. */
export const SWEEP_USAGE = `  sweep list [--status IN_FLIGHT|SWEPT|FAILED] [--partner ID] [--limit N]
                                         (sweeps of deposit addresses to the hot wallet, newest first: what, from, to,
                                          the gas top-up's and the sweep's transaction hashes, status; utxoSweeps: one
                                          transaction spending many deposits on bitcoin, litecoin, dogecoin, its fee)`;

const LIST_LIMIT = 100;

export const sweepCommands: Record<string, Command> = {
  'sweep list': command({
    changesState: false,
    flags: {
      status: z.enum(['IN_FLIGHT', 'SWEPT', 'FAILED']).optional(),
      partner: uuidFlag.optional(),
      limit: limitFlag(1000),
    },
    async run({ em, flags }) {
      const filter = { status: flags.status, partnerId: flags.partner?.toLowerCase(), limit: flags.limit ?? LIST_LIMIT };
      return { sweeps: await findEvmSweeps(em, filter), utxoSweeps: await findUtxoSweeps(em, filter) };
    },
  }),
};
