import fs from 'node:fs';
import { WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { describeWorkflow, isRunning } from '../activities/workflow-inspection';
import { DomainError } from '../core/errors';
import { parseTravelRuleCompletion } from '../core/travel-rule-completion';
import { findOperation, operationIdFrom } from '../db/services/operation-lookup';
import { OperatorActionRefused } from '../operations/operator/operator-refusal';
import { recordOperatorAction } from '../db/services/operator-audit.service';
import { travelRuleCompletionDigest } from '../db/services/travel-rule-completion-digest';
import { completeTravelRuleUpdate, cryptoWithdrawalContract } from '../contracts';
import type { OperatorCommand } from './ops-command';
import { asUsageMistake, CliFailure, operatorCommand, requiredText } from './ops-command';

/** Completing a withdrawal's travel-rule data by an operator (main/ops.cli.ts), audited before the workflow hears of it. */
export const TRAVEL_RULE_USAGE = `  travel-rule complete --withdrawal ID --completed-by EMAIL [--beneficiary-json FILE]`;

/** How long the CLI waits for a workflow to answer an Update before saying it got no answer. */
const UPDATE_DEADLINE_MS = 60_000;

function readBeneficiaryJson(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new DomainError(
      'invalid-request',
      `--beneficiary-json cannot be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new DomainError('invalid-request', `--beneficiary-json is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export const travelRuleCommands: Record<string, OperatorCommand> = {
  /**
   * Checks all it can, commits the audit row, then sends the Update naming it: the workflow acts only on a completion
   * whose row exists. A row whose Update fails stays unused, and the failure names it.
   */
  'travel-rule complete': operatorCommand({
    changesState: true,
    flags: { withdrawal: requiredText, 'completed-by': requiredText, 'beneficiary-json': requiredText.optional() },
    async run(context) {
      const input = context.flags;
      const operator = context.operator!;
      const id = asUsageMistake(() => operationIdFrom(input.withdrawal));
      const operation = await findOperation(context.orm.em.fork(), id);
      if (operation?.type !== 'crypto-withdrawal') throw new DomainError('not-found', `no crypto withdrawal has the id ${id}`);
      const beneficiary = input['beneficiary-json'] === undefined ? undefined : readBeneficiaryJson(input['beneficiary-json']);
      // The workflow's own validator: nothing is recorded for a completion it would refuse.
      const parsed = parseTravelRuleCompletion({
        completedBy: input['completed-by'],
        ...(beneficiary === undefined ? {} : { beneficiary }),
      });
      if ('problems' in parsed) throw new DomainError('invalid-request', parsed.problems);
      const completion = parsed.completion;
      const workflowId = cryptoWithdrawalContract.workflowId(id);
      if (operation.row.status !== 'IN_PROGRESS_TR_DATA') {
        throw new OperatorActionRefused(
          'not-awaiting-travel-rule-data',
          `withdrawal ${id} is ${operation.row.status} (stage ${operation.row.stage}), not waiting for travel-rule data`,
        );
      }
      const temporal = await context.temporal();
      if ('unreachable' in temporal) throw new DomainError('service-unavailable', temporal.unreachable);
      const state = await describeWorkflow(temporal.client, workflowId, { unreachableAsState: true });
      if (!isRunning(state)) {
        if (!state.found && state.reason === 'unreachable') throw new DomainError('service-unavailable', state.message);
        const status = state.found ? state.status : 'not found';
        throw new CliFailure({
          error: 'workflow-not-running',
          message: `${workflowId} is not running (${status}): nothing was recorded or sent`,
        });
      }
      const operatorActionId = await context.orm.em.fork().transactional(async (em) =>
        recordOperatorAction(
          em,
          operator,
          {
            action: 'travel-rule-complete',
            subject: { type: 'operation', id, operationType: 'crypto-withdrawal', partnerId: operation.row.partnerId },
            reason: context.reason,
            details: {
              workflowId,
              completedBy: completion.completedBy,
              beneficiaryProvided: completion.beneficiary !== undefined,
              completionDigest: await travelRuleCompletionDigest(em, completion),
            },
          },
          new Date(),
        ),
      );
      const failed = (error: string, message: string) =>
        new CliFailure({ error, message: `${message} (operator action ${operatorActionId} stays unused)`, operatorActionId });
      let result: unknown;
      try {
        result = await temporal.connection.withDeadline(Date.now() + UPDATE_DEADLINE_MS, () =>
          temporal.client.workflow.getHandle(workflowId).executeUpdate(completeTravelRuleUpdate, {
            args: [{ ...completion, operatorActionId }],
          }),
        );
      } catch (error) {
        if (error instanceof WorkflowUpdateFailedError) throw failed('invalid-request', error.cause?.message ?? error.message);
        if (error instanceof WorkflowNotFoundError)
          throw failed('workflow-not-running', `${workflowId} is not running (closed or gone): ${error.message}`);
        if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError || (error as { code?: unknown }).code === 4) {
          throw new CliFailure({
            error: 'service-unavailable',
            message: `no answer from ${workflowId} within ${UPDATE_DEADLINE_MS / 1000} s (is a worker running?); the completion may still be applied: see operation show`,
            operatorActionId,
          });
        }
        throw failed('internal-error', error instanceof Error ? error.message : String(error));
      }
      return { withdrawalId: id, workflowId, result, operatorActionId };
    },
  }),
};
