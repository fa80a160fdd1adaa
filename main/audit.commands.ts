import { z } from 'zod';
import { listOperatorActions } from '../db/queries/operator-action.queries';
import { OPERATOR_ACTIONS } from '../db/entities/operator-action.entity';
import type { Command } from './ops-command';
import { parseFlags } from './ops-command';

/** Reading the operators' trail (main/ops.cli.ts); reading it writes nothing. */
export const AUDIT_USAGE = `  audit list [--partner ID] [--action A] [--limit N]   (newest first; N from 1 to 500, default 50)`;

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

export const auditCommands: Record<string, Command> = {
  'audit list': {
    changesState: false,
    async run({ em, flags }) {
      const input = parseFlags(
        z.object({
          partner: z.uuid('must be a UUID').optional(),
          action: z.enum(OPERATOR_ACTIONS, { error: `must be one of ${OPERATOR_ACTIONS.join(', ')}` }).optional(),
          limit: z
            .string()
            .regex(/^\d{1,4}$/, `must be a whole number from 1 to ${MAX_LIMIT}`)
            .transform(Number)
            .refine((value) => value >= 1 && value <= MAX_LIMIT, `must be a whole number from 1 to ${MAX_LIMIT}`)
            .optional(),
        }),
        flags,
      );
      const actions = await listOperatorActions(em, {
        partnerId: input.partner?.toLowerCase(),
        action: input.action,
        limit: input.limit ?? DEFAULT_LIMIT,
      });
      return { actions };
    },
  },
};
