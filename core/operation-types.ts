/**
 * The money-moving operations, declared once each; pure data, safe in workflow code. Layers keep their
 * own parts in a `Record<OperationType, …>`, so a new entry does not compile until each has said what it
 * means there (docs/architecture.md, "Adding an operation").
 */
export interface OperationTypeFacts {
  /** Temporal's registered workflow name. */
  workflowType: string;
  /** `<prefix>-<operation id>` is the workflow id: the operation id is the business key. */
  workflowIdPrefix: string;
  /** Of the ledger transfer made under the operation's id (and of its accepted_operation row). */
  ledgerKind: 'EXCHANGE' | 'CRYPTO_WITHDRAWAL' | 'SEPA_TRANSFER';
  /** The `OperationType` search attribute's values. */
  searchAttributeValues: readonly string[];
  /** The webhook event a status or stage change sends (core/webhook-event.ts). */
  webhookEventType: string;
  /** For messages: "crypto withdrawal". */
  label: string;
}

export const OPERATION_TYPES = {
  'crypto-withdrawal': {
    workflowType: 'cryptoWithdrawalWorkflow',
    workflowIdPrefix: 'crypto-withdrawal',
    ledgerKind: 'CRYPTO_WITHDRAWAL',
    // A partner's own withdrawal, or one on behalf of one of its users.
    searchAttributeValues: ['crypto-withdrawal', 'user-crypto-withdrawal'],
    webhookEventType: 'crypto_withdrawal.status_changed',
    label: 'crypto withdrawal',
  },
  'sepa-transfer': {
    workflowType: 'sepaTransferWorkflow',
    workflowIdPrefix: 'sepa-transfer',
    ledgerKind: 'SEPA_TRANSFER',
    searchAttributeValues: ['sepa-transfer'],
    webhookEventType: 'sepa_transfer.status_changed',
    label: 'SEPA transfer',
  },
  exchange: {
    workflowType: 'exchangeWorkflow',
    workflowIdPrefix: 'exchange',
    ledgerKind: 'EXCHANGE',
    searchAttributeValues: ['exchange'],
    webhookEventType: 'exchange.status_changed',
    label: 'exchange',
  },
} as const satisfies Record<string, OperationTypeFacts>;

export type OperationType = keyof typeof OPERATION_TYPES;
export const OPERATION_TYPE_NAMES = Object.keys(OPERATION_TYPES) as OperationType[];

/** The workflow id of one operation: `crypto-withdrawal-<id>`. */
export function operationWorkflowId(type: OperationType, operationId: string): string {
  return `${OPERATION_TYPES[type].workflowIdPrefix}-${operationId}`;
}

/** The operation a workflow id names, when it is one of ours; the id part is not checked here. */
export function operationOfWorkflowId(workflowId: string): { type: OperationType; operationId: string } | undefined {
  for (const type of OPERATION_TYPE_NAMES) {
    const prefix = `${OPERATION_TYPES[type].workflowIdPrefix}-`;
    if (workflowId.startsWith(prefix)) return { type, operationId: workflowId.slice(prefix.length) };
  }
  return undefined;
}
