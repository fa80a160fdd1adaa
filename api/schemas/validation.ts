import type { z } from 'zod';
import { DomainError } from '../../core/errors';
import type { DomainErrorKind } from '../../core/errors';

/** Parses with a zod schema; failures become one DomainError whose message has a line per problem. */
export function parseOrThrow<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  kind: DomainErrorKind,
): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const field = issue.path.map(String).join('.');
    return field ? `${field}: ${issue.message}` : issue.message;
  });
  throw new DomainError(kind, [...new Set(lines)].join('\n'));
}
