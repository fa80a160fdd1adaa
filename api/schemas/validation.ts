import type { z } from 'zod';
import { DomainError } from '../../core/errors';
import type { DomainErrorKind } from '../../core/errors';
import { textIssues } from './text-safety';

/**
 * Parses with a zod schema; failures become one DomainError (of the route's kind) whose message
 * has a line per problem. Every string is checked for control characters and well-formedness
 * first, so no schema ever works on such text.
 */
export function parseOrThrow<Schema extends z.ZodType>(schema: Schema, input: unknown, kind: DomainErrorKind): z.output<Schema> {
  const unsafe = textIssues(input);
  if (unsafe.length > 0) throw new DomainError(kind, problemLines(unsafe));
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new DomainError(kind, problemLines(result.error.issues));
}

function problemLines(issues: ReadonlyArray<{ path: readonly PropertyKey[]; message: string }>): string {
  const lines = issues.map((issue) => {
    const field = issue.path.map(String).join('.');
    return field ? `${field}: ${issue.message}` : issue.message;
  });
  return [...new Set(lines)].join('\n');
}
