import { z } from 'zod';
import { findEvmSweeps } from '../db/queries/evm-sweep.queries';
import type { Command } from './ops-command';
import { parseFlags } from './ops-command';

/** The sweep commands of the operator CLI (main/ops.cli.ts): what moved from deposit addresses to the hot wallets. */
export const SWEEP_USAGE = `  sweep list [--status IN_FLIGHT|SWEPT|FAILED] [--partner ID] [--limit N]
                                         (sweeps of deposit addresses to the hot wallet, newest first: what, from, to,
                                          the gas top-up's and the sweep's transaction hashes, status)`;

const LIST_LIMIT = 100;

export const sweepCommands: Record<string, Command> = {
  'sweep list': {
    changesState: false,
    async run({ em, flags }) {
      const input = parseFlags(
        z.object({
          status: z.enum(['IN_FLIGHT', 'SWEPT', 'FAILED']).optional(),
          partner: z.uuid('must be a UUID').optional(),
          limit: z
            .string()
            .regex(/^\d{1,4}$/, 'must be a whole number from 1 to 1000')
            .transform(Number)
            .refine((limit) => limit >= 1 && limit <= 1000, 'must be a whole number from 1 to 1000')
            .optional(),
        }),
        flags,
      );
      const sweeps = await findEvmSweeps(em, {
        status: input.status,
        partnerId: input.partner?.toLowerCase(),
        limit: input.limit ?? LIST_LIMIT,
      });
      return { sweeps };
    },
  },
};
