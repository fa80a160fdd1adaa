/** An error and the errors it wraps (MikroORM's `previous`, a standard `cause`), outermost first, a few levels deep. */
export function* errorChain(error: unknown): Generator<object> {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    yield current;
    current = (current as { cause?: unknown; previous?: unknown }).previous ?? (current as { cause?: unknown }).cause;
  }
}

/** The SQLSTATE of a Postgres error, whether pg's own or wrapped by MikroORM. */
export function sqlStateOf(error: unknown): string | undefined {
  return postgresErrorOf(error)?.code;
}

/** The Postgres error itself (SQLSTATE and the server's message, without MikroORM's prefix), through the wrappers. */
export function postgresErrorOf(error: unknown): { code: string; message: string; detail?: string } | undefined {
  let found: { code: string; message: string; detail?: string } | undefined;
  for (const each of errorChain(error)) {
    const { code, sqlState, message, detail } = each as { code?: unknown; sqlState?: unknown; message?: unknown; detail?: unknown };
    const state = typeof sqlState === 'string' ? sqlState : code;
    // The innermost error with a SQLSTATE is pg's, whose message is the server's own.
    if (typeof state === 'string' && /^[0-9A-Z]{5}$/.test(state))
      found = { code: state, message: typeof message === 'string' ? message : '', ...(typeof detail === 'string' ? { detail } : {}) };
  }
  return found;
}
