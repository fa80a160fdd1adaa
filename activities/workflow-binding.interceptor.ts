import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Workflow } from '@temporalio/common';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import {
  cryptoWithdrawalContract,
  evmDepositWatcherContract,
  evmSweepContract,
  evmSweeperContract,
  exchangeContract,
  incomingSepaContract,
  reconciliationContract,
  sepaTransferContract,
  webhookDispatcherContract,
} from '../contracts';
import type { WorkflowContract } from '../contracts';
import type { DomainErrorKind } from '../core/errors';
import type { Activities } from './index';

/**
 * Who may run an activity: its own operation's workflow (the contract's id for the operation id
 * the activity names, and the contract's type), or, for an activity that names no operation, a
 * workflow of the type that calls it.
 */
type Binding =
  | { operationOf: WorkflowContract<Workflow>; operationId: (args: readonly unknown[]) => unknown }
  | { calledBy: readonly WorkflowContract<Workflow>[] }
  /** The first money-moving step: it checks the same, and more, itself, and records what it refuses for reconciliation. */
  | { acceptedOperationOf: WorkflowContract<Workflow> };

const byFirstArgument = (contract: WorkflowContract<Workflow>): Binding => ({ operationOf: contract, operationId: (args) => args[0] });
const byAcceptedOperation = (contract: WorkflowContract<Workflow>): Binding => ({ acceptedOperationOf: contract });
const calledBy = (...contracts: WorkflowContract<Workflow>[]): Binding => ({ calledBy: contracts });

/**
 * Every activity the worker runs, with who may run it. A Record over the activities' names, so a
 * new activity does not compile until it says. The first money-moving step already checks the
 * operation the API accepted (accepted-operation.guard.ts); this binds every later step to that
 * operation's own workflow, so a workflow that is not ours (a worker of someone holding the
 * payload key) cannot release, settle or reject someone else's operation. The steps that only ask
 * the chain or the bank take its answer, not the caller's word, and only check the type.
 */
export const ACTIVITY_BINDINGS: Record<keyof Activities, Binding> = {
  reconcileLedger: calledBy(reconciliationContract),
  deliverWebhookEvents: calledBy(webhookDispatcherContract),
  // They act only on what the database holds (the bank's notifications, returns an operator recorded).
  ingestBankNotifications: calledBy(incomingSepaContract),
  advanceSepaReturns: calledBy(incomingSepaContract),
  scanEvmDeposits: calledBy(evmDepositWatcherContract),
  startDueEvmSweeps: calledBy(evmSweeperContract),
  // A sweep pays only the configured hot wallet, and only what Postgres says was credited: a caller's word changes neither.
  claimEvmSweep: calledBy(evmSweepContract),
  advanceEvmSweep: calledBy(evmSweepContract),

  executeExchange: byAcceptedOperation(exchangeContract),
  abandonExchange: byFirstArgument(exchangeContract),

  reserveWithdrawal: byAcceptedOperation(cryptoWithdrawalContract),
  abandonWithdrawal: byFirstArgument(cryptoWithdrawalContract),
  checkTravelRule: byFirstArgument(cryptoWithdrawalContract),
  recordTravelRuleCompletion: byFirstArgument(cryptoWithdrawalContract),
  setWithdrawalProgress: byFirstArgument(cryptoWithdrawalContract),
  markWithdrawalHandOff: byFirstArgument(cryptoWithdrawalContract),
  broadcastWithdrawal: byFirstArgument(cryptoWithdrawalContract),
  pollWithdrawalConfirmation: calledBy(cryptoWithdrawalContract),
  awaitWithdrawalConfirmation: calledBy(cryptoWithdrawalContract),
  settleWithdrawal: byFirstArgument(cryptoWithdrawalContract),
  releaseWithdrawal: byFirstArgument(cryptoWithdrawalContract),
  rejectWithdrawal: byFirstArgument(cryptoWithdrawalContract),
  recordWithdrawalCancellation: byFirstArgument(cryptoWithdrawalContract),

  reserveSepaTransfer: byAcceptedOperation(sepaTransferContract),
  abandonSepaTransfer: byFirstArgument(sepaTransferContract),
  markSepaHandOff: byFirstArgument(sepaTransferContract),
  submitSepaTransfer: byFirstArgument(sepaTransferContract),
  pollBankAnswer: calledBy(sepaTransferContract),
  awaitBankAnswer: calledBy(sepaTransferContract),
  settleSepaTransfer: byFirstArgument(sepaTransferContract),
  releaseSepaTransfer: byFirstArgument(sepaTransferContract),
  rejectSepaTransfer: byFirstArgument(sepaTransferContract),
  recordSepaCancellation: byFirstArgument(sepaTransferContract),
};

const UNKNOWN_OPERATION: DomainErrorKind = 'unknown-operation';

/** Why this workflow may not run this activity with these arguments; undefined when it may. */
export function bindingRefusal(
  activityType: string,
  args: readonly unknown[],
  caller: { workflowId: string | undefined; workflowType: string | undefined },
): string | undefined {
  const binding = Object.hasOwn(ACTIVITY_BINDINGS, activityType) ? ACTIVITY_BINDINGS[activityType as keyof Activities] : undefined;
  if (!binding) return `no workflow may run the activity ${activityType}`;
  if ('acceptedOperationOf' in binding) return undefined;
  if ('calledBy' in binding) {
    return binding.calledBy.some((contract) => contract.workflowType === caller.workflowType)
      ? undefined
      : `${activityType} runs only for ${binding.calledBy.map((contract) => contract.workflowType).join(', ')}`;
  }
  const operationId = binding.operationId(args);
  if (typeof operationId !== 'string' || operationId.length === 0 || operationId.length > 64) {
    return `${activityType} names no operation`;
  }
  const { operationOf: contract } = binding;
  if (caller.workflowType !== contract.workflowType || caller.workflowId !== contract.workflowId(operationId)) {
    return `${activityType} for operation ${operationId} runs only in workflow ${contract.workflowId(operationId)} (${contract.workflowType})`;
  }
  return undefined;
}

/**
 * Refuses, before it does anything, an activity run by a workflow it is not bound to (above): a
 * non-retryable `unknown-operation`, logged. Registered right after the payload guard.
 */
export class WorkflowBindingInterceptor implements ActivityInboundCallsInterceptor {
  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const { info, log } = Context.current();
    const refusal = bindingRefusal(info.activityType, input.args, {
      workflowId: info.workflowExecution?.workflowId,
      workflowType: info.workflowType,
    });
    if (refusal !== undefined) {
      log.warn(`refused activity ${info.activityType} of workflow ${info.workflowExecution?.workflowId ?? '(none)'}: ${refusal}`);
      throw ApplicationFailure.create({ type: UNKNOWN_OPERATION, message: refusal, nonRetryable: true });
    }
    return next(input);
  }
}
