import { z } from 'zod';
import { listOperatorActions } from '../db/queries/operator-action.queries';
import { OPERATOR_ACTIONS } from '../db/entities/operator-action.entity';
import type { Command } from './ops-command';
import { command, limitFlag, uuidFlag } from './ops-command';

/** Reading the operators' trail (main/ops.cli.ts); reading it writes nothing. */
export const AUDIT_USAGE = `  audit list [--partner ID] [--action A] [--limit N]   (newest first; N from 1 to 500, default 50)`;

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

export const auditCommands: Record<string, Command> = {
  'audit list': command({
    changesState: false,
    flags: {
      partner: uuidFlag.optional(),
      action: z.enum(OPERATOR_ACTIONS, { error: `must be one of ${OPERATOR_ACTIONS.join(', ')}` }).optional(),
      limit: limitFlag(MAX_LIMIT),
    },
    async run({ em, flags }) {
      const actions = await listOperatorActions(em, {
        partnerId: flags.partner?.toLowerCase(),
        action: flags.action,
        limit: flags.limit ?? DEFAULT_LIMIT,
      });
      return { actions };
    },
  }),
};
