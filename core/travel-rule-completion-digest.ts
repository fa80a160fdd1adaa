import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';

/**
 * What ties a travel-rule completion to the audit row the operator CLI wrote before sending it:
 * the CLI stores this digest in the row's details (`completionDigest`), and whoever consumes the
 * row checks that the completion it received digests the same, so a valid row cannot carry other
 * data. SHA-256 hex of the canonical JSON of { completedBy, beneficiary } (keys sorted at every
 * level, beneficiary left out when not given). Not for workflow code: it uses node:crypto.
 */
export function travelRuleCompletionDigest(completion: { completedBy: string; beneficiary?: unknown }): string {
  const subject =
    completion.beneficiary === undefined
      ? { completedBy: completion.completedBy }
      : { beneficiary: completion.beneficiary, completedBy: completion.completedBy };
  return createHash('sha256').update(canonicalJson(subject), 'utf8').digest('hex');
}
