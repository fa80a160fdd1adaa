import { randomUUID } from 'node:crypto';
import { cryptoWithdrawalContract, exchangeContract, sepaTransferContract } from '../../contracts';
import type { WorkflowContract } from '../../contracts';
import { OPERATION_TYPES, OPERATION_TYPE_NAMES, operationOfWorkflowId, operationWorkflowId } from '../../core/operation-types';
import type { OperationType } from '../../core/operation-types';
import { OPERATION_WEBHOOK_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from '../../core/webhook-event';
import type { Workflow } from '@temporalio/common';

const CONTRACTS: Record<OperationType, WorkflowContract<Workflow>> = {
  exchange: exchangeContract,
  'crypto-withdrawal': cryptoWithdrawalContract,
  'sepa-transfer': sepaTransferContract,
};

describe('the registry of operation types', () => {
  it.each(OPERATION_TYPE_NAMES)('%s: its contract takes its workflow type and id from the registry', (type) => {
    const id = randomUUID();
    expect(CONTRACTS[type].workflowType).toBe(OPERATION_TYPES[type].workflowType);
    expect(CONTRACTS[type].workflowId(id)).toBe(operationWorkflowId(type, id));
    expect(operationOfWorkflowId(CONTRACTS[type].workflowId(id))).toEqual({ type, operationId: id });
  });

  it('names each workflow, id prefix, ledger kind and webhook event once', () => {
    for (const fact of ['workflowType', 'workflowIdPrefix', 'ledgerKind', 'webhookEventType'] as const) {
      const values = OPERATION_TYPE_NAMES.map((type) => OPERATION_TYPES[type][fact]);
      expect(new Set(values).size).toBe(values.length);
    }
    // No prefix is the start of another's, so a workflow id names one type.
    for (const a of OPERATION_TYPE_NAMES)
      for (const b of OPERATION_TYPE_NAMES)
        if (a !== b) expect(OPERATION_TYPES[a].workflowIdPrefix.startsWith(`${OPERATION_TYPES[b].workflowIdPrefix}-`)).toBe(false);
    expect(OPERATION_WEBHOOK_EVENT_TYPES).toEqual([
      'crypto_withdrawal.status_changed',
      'sepa_transfer.status_changed',
      'exchange.status_changed',
    ]);
    // Beside them, those of deposits found on chain and of the address book, which no operation type sends.
    expect(WEBHOOK_EVENT_TYPES).toEqual([
      ...OPERATION_WEBHOOK_EVENT_TYPES,
      'deposit.pending',
      'deposit.succeeded',
      'deposit.failed',
      'withdrawal_address.created',
      'withdrawal_address.deleted',
    ]);
  });

  it('reads no operation from a workflow id that is not one of ours', () => {
    expect(operationOfWorkflowId('ledger-reconciliation-2026')).toBeUndefined();
    expect(operationOfWorkflowId('webhook-dispatcher')).toBeUndefined();
  });
});
