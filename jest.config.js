/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type checking runs once in `npm run typecheck`; here TypeScript is only transpiled.
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  testTimeout: 60_000,
  maxWorkers: 2,
  // The Temporal SDK keeps native handles open after tests finish (known SDK issue).
  forceExit: true,
};
