import type { MikroORM } from '@mikro-orm/postgresql';
import type { TravelRuleCompletion } from '../../contracts';
import { cryptoWithdrawalContract } from '../../contracts';
import { travelRuleCompletionDigest } from '../../db/services/travel-rule-completion-digest';
import { recordOperatorAction } from '../../db/services/operator-audit.service';

/**
 * What `npm run ops -- travel-rule complete` does before it sends its Update: writes the audit row
 * (with the digest of the completion) and names it in the completion. For tests that send the
 * Update themselves; the CLI's own path is tested in test/e2e/ops-operations.test.ts.
 */
export async function auditedCompletion(
  orm: MikroORM,
  withdrawal: { withdrawalId: string; partnerId: string },
  completion: Omit<TravelRuleCompletion, 'operatorActionId'>,
): Promise<TravelRuleCompletion> {
  const operatorActionId = await orm.em.fork().transactional(async (em) =>
    recordOperatorAction(
      em,
      { actor: 'compliance-test', osUser: 'test' },
      {
        action: 'travel-rule-complete',
        subject: { type: 'operation', id: withdrawal.withdrawalId, operationType: 'crypto-withdrawal', partnerId: withdrawal.partnerId },
        reason: 'travel-rule data completed in a test',
        details: {
          workflowId: cryptoWithdrawalContract.workflowId(withdrawal.withdrawalId),
          completedBy: completion.completedBy,
          beneficiaryProvided: completion.beneficiary !== undefined,
          completionDigest: await travelRuleCompletionDigest(em, completion),
        },
      },
      new Date(),
    ),
  );
  return { ...completion, operatorActionId };
}
