import type { z } from 'zod';
import { DomainError } from '../../core/errors';
import type { DomainErrorKind } from '../../core/errors';
import { textIssues } from './text-safety';

/** Parses, or throws one DomainError of `kind` with a line per problem; unsafe strings are refused before any schema sees them. */
export function parseOrThrow<Schema extends z.ZodType>(schema: Schema, input: unknown, kind: DomainErrorKind): z.output<Schema> {
  const unsafe = textIssues(input);
  if (unsafe.length > 0) throw new DomainError(kind, problemLines(unsafe));
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new DomainError(kind, problemLines(result.error.issues));
}

/** A problem with one field of what a schema refines or transforms. */
export function addProblem(context: z.core.$RefinementCtx, field: string, message: string): void {
  context.addIssue({ code: 'custom', path: [field], message });
}

function problemLines(issues: ReadonlyArray<{ path: readonly PropertyKey[]; message: string }>): string {
  const lines = issues.map((issue) => {
    const field = issue.path.map(String).join('.');
    return field ? `${field}: ${issue.message}` : issue.message;
  });
  return [...new Set(lines)].join('\n');
}
