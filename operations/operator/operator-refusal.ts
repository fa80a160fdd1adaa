/** Why an operator command was refused: a state the money is in, not an input error. The CLI prints it as `reason`. */
export type RefusalReason =
  | 'not-resolvable'
  | 'not-open'
  | 'transfer-not-pending'
  | 'handed-off'
  | 'not-handed-off'
  | 'no-external-reference'
  | 'rejected-externally'
  | 'workflow-running'
  | 'temporal-unreachable'
  | 'not-awaiting-travel-rule-data'
  | 'self-approval'
  | 'already-approved'
  | 'already-resolved'
  | 'account-not-active'
  | 'no-evm-node'
  | 'not-development-chain'
  | 'already-the-recorded-chain'
  | 'withdrawals-in-flight'
  | 'wallet-nonces-behind';

export class OperatorActionRefused extends Error {
  override readonly name = 'OperatorActionRefused';

  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}
