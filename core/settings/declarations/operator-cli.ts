import { setting } from '../setting';
import { oneOf, optionalDecimal, personName } from '../values';

export const MANUAL_CREDIT_APPROVAL_OS_USERS = ['distinct', 'shared'] as const;
export type ManualCreditApprovalOsUsers = (typeof MANUAL_CREDIT_APPROVAL_OS_USERS)[number];

/** The operator CLI (`npm run ops`). */
export const OPERATOR_CLI_SETTINGS = {
  operatorCli: {
    operator: setting(
      'OPS_OPERATOR',
      personName(),
      '`npm run ops`: the actor recorded in the audit trail when `--operator` is not given (at most 200 characters)',
      { shownDefault: '(the OS user)' },
    ),
    manualCreditApprovalAboveEur: setting(
      'MANUAL_CREDIT_APPROVAL_ABOVE_EUR',
      optionalDecimal('10000'),
      "`npm run ops -- deposit` worth more than this in EUR waits for a second operator's `deposit approve` (a plain decimal)",
      { shownDefault: '(none: no approval)' },
    ),
    // The login is evidence; a typed name is not. `shared` where every operator runs from one account (a container's).
    manualCreditApprovalOsUsers: setting(
      'MANUAL_CREDIT_APPROVAL_OS_USERS',
      oneOf(MANUAL_CREDIT_APPROVAL_OS_USERS, 'distinct'),
      '`distinct`: the approver also runs from another OS account than the requester; `shared`: operators share one account, only the names must differ',
    ),
  },
};
