/**
 * Tests in tiers, one jest project each (`jest --selectProjects unit`, or a path):
 * - unit: pure code, no infrastructure, seconds (`npm run test:unit`);
 * - workflows: each workflow on its own with mocked activities, through a real worker on the
 *   run's Temporal dev server;
 * - integration and e2e: the real stack (Postgres, Temporal, the worker; e2e through HTTP).
 * - faults (`npm run test:faults`): the fault campaign, which starts its own Postgres, Temporal,
 *   API and worker processes to kill and restart them; only when asked for (below).
 * - devchain: `npm start`'s local chain (geth) across restarts, `chain fund` and a reset; only when asked for (below).
 * The three stack tiers share one global setup, which jest runs once per run (and only when a
 * test of those tiers is selected): it starts the stack, and the teardown checks the ledger,
 * stops every process a test started and then the stack.
 * @type {import('jest').Config}
 */
const shared = {
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type checking runs once in `npm run typecheck`; here TypeScript is only transpiled.
    '^.+\\.ts$': '<rootDir>/test/support/esbuild-transform.js',
  },
};

/**
 * The fault campaign takes minutes and starts processes of its own: it runs only when asked for
 * by name (`jest --selectProjects faults`, i.e. `npm run test:faults`, or a path under
 * test/faults), so a plain `jest` (`npm test`) leaves its project out.
 */
const faultsAsked = process.argv.some((arg) => arg === 'faults' || arg.endsWith('=faults') || arg.includes('test/faults'));

/**
 * The chaos run's own tests (test/chaos: its Toxiproxy client against the real server, which needs
 * Go on first use) run only when asked for (`jest --selectProjects chaos`, or a path under
 * test/chaos): `npm test` needs no Go. The run itself is `npm run test:chaos`, not jest.
 */
const chaosAsked = process.argv.some((arg) => arg === 'chaos' || arg.endsWith('=chaos') || arg.includes('test/chaos'));

/**
 * The load tests (test/load: one partner's flood beside another's steady traffic, judged by who is refused) run only when
 * asked for (`jest --selectProjects load`, or a path under test/load), on their own: beside the other files' load on 2
 * cores, no answer would mean anything.
 */
const loadAsked = process.argv.some((arg) => arg === 'load' || arg.endsWith('=load') || arg.includes('test/load'));

/**
 * `npm start`'s development chain (test/devchain: the real geth, built with Go on first use) runs
 * only when asked for (`jest --selectProjects devchain`, or a path under test/devchain), on its
 * own: it records the run's ethereum chain as geth's, where the other tiers' Hardhat nodes stand for ethereum.
 */
const devchainAsked = process.argv.some((arg) => arg === 'devchain' || arg.endsWith('=devchain') || arg.includes('test/devchain'));

/**
 * Only the workflow tier asked for (`npm run test:workflows`, or paths under test/workflows): its
 * activities are mocked, so the stack starts Temporal alone, no Postgres and no service worker
 * (test/support/test-stack.main.ts). Any other selection starts the whole stack.
 */
function onlyWorkflowsAsked(args) {
  const projects = [];
  const paths = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (arg === '--selectProjects') {
      while (i + 1 < args.length && !args[i + 1].startsWith('-')) projects.push(args[++i]);
    } else if (arg.startsWith('--selectProjects=')) {
      projects.push(...arg.slice('--selectProjects='.length).split(','));
    } else if (arg.startsWith('-')) {
      // A flag's value (e.g. --testPathIgnorePatterns x) is not a path to run: skip it when it is separate.
      if (!arg.includes('=') && i + 1 < args.length && !args[i + 1].startsWith('-') && FLAGS_WITH_VALUE.has(arg)) i += 1;
    } else {
      paths.push(arg);
    }
  }
  if (projects.length > 0) return projects.every((project) => project === 'workflows');
  return paths.length > 0 && paths.every((each) => each.replace(/\\/g, '/').includes('test/workflows'));
}
const FLAGS_WITH_VALUE = new Set(['--testPathIgnorePatterns', '--testNamePattern', '-t', '--maxWorkers', '-w', '--config', '-c']);
process.env.TEST_STACK_SCOPE ??= onlyWorkflowsAsked(process.argv.slice(2)) ? 'temporal' : 'full';

const onTheStack = {
  ...shared,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

module.exports = {
  projects: [
    { ...shared, displayName: 'unit', roots: ['<rootDir>/test/unit'] },
    { ...onTheStack, displayName: 'workflows', roots: ['<rootDir>/test/workflows'] },
    { ...onTheStack, displayName: 'integration', roots: ['<rootDir>/test/integration'] },
    { ...onTheStack, displayName: 'e2e', roots: ['<rootDir>/test/e2e'] },
    // Its own stack (test/faults/support/harness.ts): no global setup.
    ...(faultsAsked ? [{ ...shared, displayName: 'faults', roots: ['<rootDir>/test/faults'] }] : []),
    ...(chaosAsked ? [{ ...onTheStack, displayName: 'chaos', roots: ['<rootDir>/test/chaos'] }] : []),
    ...(devchainAsked ? [{ ...onTheStack, displayName: 'devchain', roots: ['<rootDir>/test/devchain'] }] : []),
    ...(loadAsked ? [{ ...onTheStack, displayName: 'load', roots: ['<rootDir>/test/load'] }] : []),
  ],
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  // A run-wide option: jest ignores it inside a project. What tells a hung test from a slow one on
  // a loaded 2-core machine (a test that starts the operator CLI eight times took over 60 s there).
  testTimeout: 180_000,
  maxWorkers: 2,
};
