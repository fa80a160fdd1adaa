// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.data/**', 'coverage/**', 'eslint.config.mjs', 'jest.config.js', 'test/support/summary-reporter.js'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A forgotten await on a money movement is a silent bug.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // Workflow code is replayed: it must be deterministic. No Node built-ins, no I/O libraries,
    // activities only as types, no clocks or randomness outside the SDK's deterministic ones.
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins.map((name) => ({ name, message: 'Workflows are deterministic: no Node built-ins.' })),
            ...['pg', '@mikro-orm/core', '@mikro-orm/postgresql', '@temporalio/client', '@temporalio/worker', '@temporalio/activity', 'koa'].map(
              (name) => ({ name, message: 'Workflows do no I/O: call an activity.' }),
            ),
          ],
          patterns: [
            { group: ['../activities', '../activities/*'], allowTypeImports: true, message: 'Import activities as types only.' },
            { group: ['../db/*', '../api/*', '../worker/*'], message: 'Workflows may import only types of activities and pure shared code (core/).' },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' },
        { name: 'setInterval', message: 'Use sleep() in a loop.' },
        { name: 'process', message: 'Workflows cannot read the environment.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Use uuid4() or a value from an activity.' },
      ],
    },
  },
);
