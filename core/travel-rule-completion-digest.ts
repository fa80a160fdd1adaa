import { createHash } from 'node:crypto';

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

/** JSON with object keys sorted by code unit at every level; undefined members are left out, as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`);
    return `{${members.join(',')}}`;
  }
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`${typeof value} has no JSON form`);
  return text;
}
