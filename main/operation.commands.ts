import { wrap } from '@mikro-orm/core';
import { z } from 'zod';
import { describeWorkflow, isRunning } from '../activities/workflow-inspection';
import type { WorkflowState } from '../activities/workflow-inspection';
import { DomainError } from '../core/errors';
import { findOperation, isHandedOff, ledgerTransferOf, operationIdFrom, operatorActionsOf } from '../db/services/operation-lookup';
import type { OperationRecord } from '../db/services/operation-lookup';
import { OperatorActionRefused } from '../operations/operator/operator-refusal';
import { resolveOperation } from '../operations/operator/resolve-operation';
import { operationWorkflowId } from '../core/operation-types';
import type { OperatorCommand, OperatorContext } from './ops-command';
import { asUsageMistake, operatorCommand, UsageMistake } from './ops-command';

/** Looking at one operation and closing it by hand (main/ops.cli.ts); resolve writes its own audit row. */
export const OPERATION_USAGE = `  operation show ID                      (ID: the operation id, or its workflow id)
  operation resolve ID --release|--settle --reason TEXT`;

async function workflowStateOf(context: OperatorContext, workflowId: string): Promise<WorkflowState> {
  const temporal = await context.temporal();
  if ('unreachable' in temporal) return { workflowId, found: false, reason: 'unreachable', message: temporal.unreachable };
  return describeWorkflow(temporal.client, workflowId, { unreachableAsState: true });
}

/** The operation's row for operators; the travel-rule data (personal data) only as a summary. */
function operationView(operation: OperationRecord): Record<string, unknown> {
  const { travelRule, ...row } = wrap(operation.row).toObject() as Record<string, unknown>;
  if (operation.type === 'exchange') return row;
  const view: Record<string, unknown> = { ...row, handedOff: isHandedOff(operation) };
  if (operation.type === 'crypto-withdrawal') {
    const data = travelRule as {
      requiresCompletion?: unknown;
      transfer?: { amountEur?: unknown; destinationEurLast24h?: unknown };
      completion?: Record<string, unknown>;
    } | null;
    view.travelRule = data && {
      requiresCompletion: data.requiresCompletion ?? null,
      // What the threshold was compared with: this withdrawal's EUR value, or its destination's 24-hour sum when larger.
      amountEur: data.transfer?.amountEur ?? null,
      destinationEurLast24h: data.transfer?.destinationEurLast24h ?? null,
      completion: data.completion
        ? {
            completedBy: data.completion.completedBy ?? null,
            completedAt: data.completion.completedAt ?? null,
            beneficiaryProvided: data.completion.beneficiary !== undefined,
          }
        : null,
    };
  }
  return view;
}

export const operationCommands: Record<string, OperatorCommand> = {
  'operation show': operatorCommand({
    changesState: false,
    takesArgument: 'operation ID',
    async run(context) {
      const id = asUsageMistake(() => operationIdFrom(context.args[0]!));
      const em = context.orm.em.fork();
      const operation = await findOperation(em, id);
      if (!operation) throw new DomainError('not-found', `no crypto withdrawal, SEPA transfer or exchange has the id ${id}`);
      const [ledgerTransfer, operatorActions] = await Promise.all([ledgerTransferOf(em.fork(), id), operatorActionsOf(em.fork(), id)]);
      const workflow = await workflowStateOf(context, operationWorkflowId(operation.type, id));
      return { type: operation.type, operation: operationView(operation), ledgerTransfer, operatorActions, workflow };
    },
  }),

  'operation resolve': operatorCommand({
    changesState: true,
    takesArgument: 'operation ID',
    flags: { release: z.boolean().optional(), settle: z.boolean().optional() },
    async run(context) {
      const id = asUsageMistake(() => operationIdFrom(context.args[0]!));
      const { release, settle } = context.flags;
      if (Boolean(release) === Boolean(settle)) throw new UsageMistake('give exactly one of --release or --settle');
      if (context.reason === null) throw new UsageMistake('--reason is required: say why the operation is closed by hand');
      const reason = context.reason;
      const operator = context.operator!;
      // Connected before the transaction: no row stays locked while Temporal is dialled.
      await context.temporal();
      return context.orm.em.fork().transactional((em) =>
        resolveOperation(
          em,
          { operationId: id, action: release ? 'release' : 'settle', reason, ...operator },
          new Date(),
          async (operation) => {
            const workflowId = operationWorkflowId(operation.type, operation.id);
            const state = await workflowStateOf(context, workflowId);
            if (!state.found && state.reason === 'unreachable') {
              throw new OperatorActionRefused(
                'temporal-unreachable',
                `${state.message}; refusing to resolve without knowing that no workflow still acts on ${workflowId}`,
              );
            }
            if (isRunning(state)) {
              throw new OperatorActionRefused(
                'workflow-running',
                `its workflow ${workflowId} is still running: cancel it (before the hand-off that releases the funds itself) or terminate it first, ` +
                  `in the Temporal UI or with: temporal workflow terminate --workflow-id ${workflowId} --reason "…"`,
              );
            }
            return state.found
              ? { workflowId, runId: state.runId, status: state.status, closeTime: state.closeTime }
              : { workflowId, status: 'NOT_FOUND' };
          },
        ),
      );
    },
  }),
};
