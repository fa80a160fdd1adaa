// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

/**
 * The layers, and which other top-level folders each may import: imports only go down. `main/`
 * holds the process entry points and may use anything; `test/` is not a layer.
 */
const LAYERS = {
  core: [],
  contracts: ['core'],
  db: ['core'],
  // Development infrastructure (embedded Postgres, the Temporal dev server, the local chains, which speak to their nodes
  // with the adapters' own clients): never imported by production code.
  dev: ['core', 'db', 'activities', 'worker'],
  workflows: ['contracts', 'core'],
  activities: ['contracts', 'core', 'db'],
  operations: ['contracts', 'core', 'db'],
  api: ['operations', 'contracts', 'core', 'db'],
  worker: ['activities', 'workflows', 'contracts', 'core', 'db'],
  main: ['api', 'worker', 'dev', 'operations', 'activities', 'workflows', 'contracts', 'core', 'db'],
  // `npm run bench`: drives the whole stack and its ceilings; nothing imports it.
  bench: ['main', 'api', 'worker', 'dev', 'operations', 'activities', 'workflows', 'contracts', 'core', 'db'],
};

/** test/layer-probes/<layer>/: files linted as if they were in the layer, to prove its rule. */
function probesOf(layer) {
  return [`test/layer-probes/${layer}/**/*.ts`];
}

/** An import pattern refusing every top-level folder the layer may not import. */
function layerBoundary(layer, extraAllowed = []) {
  const allowed = new Set([layer, ...LAYERS[layer], ...extraAllowed]);
  const forbidden = Object.keys(LAYERS).filter((folder) => !allowed.has(folder));
  return {
    regex: `^(\\.\\./)+(${forbidden.join('|')})(/|$)`,
    message: `${layer}/ may import only ${[...LAYERS[layer]].join(', ') || 'itself'} (imports go down the layers; see README.md, "Layers").`,
  };
}

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      '.data/**',
      'coverage/**',
      'eslint.config.mjs',
      'jest.config.js',
      'test/support/summary-reporter.js',
      'test/support/esbuild-transform.js',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A forgotten await on a money movement is a silent bug.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // Async methods that implement a Promise-returning interface need no await.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read JSON responses as `any` on purpose: the assertions are the type check.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  {
    // Workflow code is replayed: it must be deterministic. No Node built-ins, no I/O libraries,
    // activities only as types, no clocks or randomness outside the SDK's deterministic ones.
    files: ['workflows/**/*.ts', ...probesOf('workflows')],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins.map((name) => ({ name, message: 'Workflows are deterministic: no Node built-ins.' })),
            ...[
              'pg',
              '@mikro-orm/core',
              '@mikro-orm/postgresql',
              '@temporalio/client',
              '@temporalio/worker',
              '@temporalio/activity',
              'koa',
            ].map((name) => ({ name, message: 'Workflows do no I/O: call an activity.' })),
          ],
          patterns: [
            // A regex, as the layer boundary's: from any depth, a probe's included.
            { regex: '^(\\.\\./)+activities(/|$)', allowTypeImports: true, message: 'Import activities as types only.' },
            layerBoundary('workflows', ['activities']),
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' },
        { name: 'setInterval', message: 'Use sleep() in a loop.' },
        { name: 'process', message: 'Workflows cannot read the environment.' },
      ],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'Use uuid4() or a value from an activity.' }],
    },
  },
  // Every other layer: only the folders below it.
  ...Object.keys(LAYERS)
    .filter((layer) => layer !== 'workflows')
    .map((layer) => ({
      files: [`${layer}/**/*.ts`, ...probesOf(layer)],
      rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [layerBoundary(layer)] }] },
    })),
  {
    // The probes prove the rules above (test/layer-probes/README.md): a directive nothing needed is an error.
    files: ['test/layer-probes/**/*.ts'],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
);
