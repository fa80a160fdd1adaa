/** `name{labels} value` lines of a Prometheus text page; undefined when the series is absent. */
export function metricValue(page: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of page.split('\n')) {
    const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.keys(labels).length === Object.keys(found).length && Object.entries(labels).every(([key, value]) => found[key] === value)) {
      return Number(match[3]);
    }
  }
  return undefined;
}
