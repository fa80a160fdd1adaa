import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';

/**
 * Ties a travel-rule completion to the operator's audit row (`completionDigest`), so a valid row cannot
 * carry other data. Not for workflow code: it uses node:crypto.
 */
export function travelRuleCompletionDigest(completion: { completedBy: string; beneficiary?: unknown }): string {
  const subject =
    completion.beneficiary === undefined
      ? { completedBy: completion.completedBy }
      : { beneficiary: completion.beneficiary, completedBy: completion.completedBy };
  return createHash('sha256').update(canonicalJson(subject), 'utf8').digest('hex');
}
