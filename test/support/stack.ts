import type { TestStack } from './test-stack.main';

/** Addresses of the run's real Postgres and Temporal, set by global-setup. */
export function testStack(): TestStack {
  const text = process.env.TEST_STACK;
  if (!text) throw new Error('TEST_STACK is not set: run the tests through jest (global-setup starts the stack)');
  return JSON.parse(text) as TestStack;
}
