import { stringProblem } from '../../core/text-safety';
import { isJsonNumber } from '../http/exact-json';

/** Strings must be well-formed Unicode without control characters: Postgres refuses NUL and lone surrogates (a 500, or endless retries). */
export interface TextIssue {
  path: (string | number)[];
  message: string;
}

/** The bodies and queries of this API are flat; anything deeper than this is refused unread. */
export const MAX_INPUT_DEPTH = 8;

/** A body of 64 KiB can hold thousands of bad strings; naming the first few is enough. */
const MAX_ISSUES = 10;

/** One linear walk, at most MAX_INPUT_DEPTH deep. Numbers need no check: the parser held them to the JSON grammar. */
export function textIssues(input: unknown): TextIssue[] {
  const issues: TextIssue[] = [];
  walk(input, [], issues);
  return issues;
}

function walk(value: unknown, path: (string | number)[], issues: TextIssue[]): void {
  if (issues.length >= MAX_ISSUES) return;
  if (typeof value === 'string') {
    const problem = stringProblem(value);
    if (problem) issues.push({ path, message: problem });
    return;
  }
  if (typeof value !== 'object' || value === null || isJsonNumber(value)) return;
  if (path.length >= MAX_INPUT_DEPTH) {
    issues.push({ path, message: `must not be nested more than ${MAX_INPUT_DEPTH} levels deep` });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, [...path, index], issues));
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const keyProblem = stringProblem(key);
    if (keyProblem) {
      // The key itself is unprintable: name where it sits, not the key.
      if (issues.length < MAX_ISSUES) issues.push({ path, message: `a field name ${keyProblem}` });
      continue;
    }
    walk(item, [...path, key], issues);
  }
}
