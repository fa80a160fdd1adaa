/** Polls until `check` passes or the time is up (workflows finish asynchronously). */
export async function eventually<T>(check: () => Promise<T>, options: { timeoutMs?: number; intervalMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      return await check();
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
  throw lastError;
}
