/** One text per JSON value whatever its key order (what "the same request" means); undefined members left out, as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  const text = JSON.stringify(sortedKeys(value));
  if (text === undefined) throw new TypeError(`${typeof value} has no JSON form`);
  return text;
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => [key, sortedKeys(record[key])]),
  );
}
