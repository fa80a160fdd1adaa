import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';

export type OperatorActionOperationType = 'crypto-withdrawal' | 'sepa-transfer';

/** One action per state-changing `npm run ops` command; the database checks only the name's shape, so a new one needs no migration. */
export const OPERATOR_ACTIONS = [
  'partner-create',
  'key-create',
  'key-revoke',
  'key-rotate',
  'partner-set-policy',
  'account-set-status',
  'user-upsert',
  'deposit',
  'deposit-request',
  'deposit-approve',
  'bank-receive',
  'bank-assign',
  'bank-assign-request',
  'bank-return',
  'webhook-set',
  'webhook-remove',
  'release',
  'settle',
  'travel-rule-complete',
  'chain-adopt',
  'chain-fund',
] as const;
export type OperatorActionKind = (typeof OPERATOR_ACTIONS)[number];

/** What an action was taken on; `operation` is a withdrawal or SEPA transfer (operation_id and operation_type say which). */
export const OPERATOR_ACTION_SUBJECTS = [
  'partner',
  'api-key',
  'account',
  'partner-user',
  'deposit',
  'manual-credit',
  'incoming-sepa-credit',
  'simulated-bank-notification',
  'webhook-endpoint',
  'operation',
  'evm-chain-identity',
  'chain-transfer',
] as const;
export type OperatorActionSubjectType = (typeof OPERATOR_ACTION_SUBJECTS)[number];

/** The operators' audit trail, append-only for every role, written in the transaction of the command's effect. */
export const OperatorAction = defineEntity({
  name: 'OperatorAction',
  tableName: 'operator_action',
  properties: {
    id: p.uuid().primary(),
    action: p.text().$type<OperatorActionKind>(),
    /** The operator as named (`--operator`, OPS_OPERATOR, else the OS user). */
    actor: p.text(),
    /** The OS account that ran the command. */
    osUser: p.text().fieldName('os_user').nullable(),
    subjectType: p.text().$type<OperatorActionSubjectType>().fieldName('subject_type'),
    subjectId: p.uuid().fieldName('subject_id'),
    /** The partner the action concerns, when there is one (`ops audit list --partner`). */
    partnerId: p.uuid().fieldName('partner_id').nullable(),
    /** Set when the subject is an operation: `ops operation show` lists its actions. */
    operationId: p.uuid().fieldName('operation_id').nullable(),
    operationType: p
      .enum(['crypto-withdrawal', 'sepa-transfer'] satisfies OperatorActionOperationType[])
      .fieldName('operation_type')
      .nullable(),
    reason: p.text().nullable(),
    /** What was done, with names and ids only: never API keys, webhook secrets or payload keys, nor personal data. */
    details: p.json<Record<string, unknown>>().columnType('jsonb').nullable(),
    createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
  },
});
export type OperatorAction = InferEntity<typeof OperatorAction>;
