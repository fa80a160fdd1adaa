import type { EntityManager } from '@mikro-orm/postgresql';
import { assertInvariant } from '../../core/errors';

/**
 * The digest that ties a travel-rule completion to its operator's audit row (`completionDigest`), so a valid row cannot carry
 * other data. The database computes it (travel_rule_completion_digest): the hand-off checks it there too.
 */
export async function travelRuleCompletionDigest(
  em: EntityManager,
  completion: { completedBy: string; beneficiary?: unknown },
): Promise<string> {
  const beneficiary = completion.beneficiary === undefined ? null : JSON.stringify(completion.beneficiary);
  const [row] = await em.execute<Array<{ digest: string }>>('select travel_rule_completion_digest(?, ?::jsonb) as digest', [
    completion.completedBy,
    beneficiary,
  ]);
  assertInvariant(row, 'the database computed a digest');
  return row.digest;
}
