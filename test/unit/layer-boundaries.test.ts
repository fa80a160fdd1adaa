import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');

/** Probe files dropped into layers, each with one import; linted once, as `npm run lint` would. */
const PROBES = {
  apiImportsActivities: ['api', "import { createActivities } from '../activities';\nexport const probe = createActivities;\n"],
  apiImportsMain: ['api', "import { PROJECT_ROOT } from '../main/process-support';\nexport const probe = PROJECT_ROOT;\n"],
  operationsImportsApi: ['operations', "import { createApp } from '../api/app';\nexport const probe = createApp;\n"],
  coreImportsDb: ['core', "import { openOrm } from '../db/orm';\nexport const probe = openOrm;\n"],
  activitiesImportsOperations: [
    'activities',
    "import { exchange } from '../operations/exchange.operation';\nexport const probe = exchange;\n",
  ],
  workerImportsDev: ['worker', "import { startInfrastructure } from '../dev/infrastructure';\nexport const probe = startInfrastructure;\n"],
  workflowsImportActivityValues: [
    'workflows',
    "import { createActivities } from '../activities';\nexport const probe = createActivities;\n",
  ],
  apiImportsCore: ['api', "import { DomainError } from '../core/errors';\nexport const probe = DomainError;\n"],
} as const;

type ProbeName = keyof typeof PROBES;
const messages = new Map<ProbeName, string[]>();

beforeAll(async () => {
  const files = new Map<string, ProbeName>();
  for (const [name, [layer, source]] of Object.entries(PROBES) as [ProbeName, readonly [string, string]][]) {
    const file = path.join(root, layer, `zz-layer-probe-${name}-${process.pid}.ts`);
    fs.writeFileSync(file, source);
    files.set(file, name);
  }
  try {
    let stdout: string;
    try {
      ({ stdout } = await run(
        process.execPath,
        [path.join(root, 'node_modules/eslint/bin/eslint.js'), '--format', 'json', ...files.keys()],
        { cwd: root, maxBuffer: 16 * 1024 * 1024 },
      ));
    } catch (error) {
      ({ stdout } = error as { stdout: string });
    }
    for (const result of JSON.parse(stdout) as { filePath: string; messages: { ruleId: string | null; message: string }[] }[]) {
      const name = files.get(result.filePath);
      if (name)
        messages.set(
          name,
          result.messages.map((message) => `${message.ruleId ?? 'parse'}: ${message.message}`),
        );
    }
  } finally {
    for (const file of files.keys()) fs.rmSync(file, { force: true });
  }
}, 120_000);

describe('layer boundaries, enforced by npm run lint', () => {
  it.each<[ProbeName, string]>([
    ['apiImportsActivities', 'api/ may import only'],
    ['apiImportsMain', 'api/ may import only'],
    ['operationsImportsApi', 'operations/ may import only'],
    ['coreImportsDb', 'core/ may import only'],
    ['activitiesImportsOperations', 'activities/ may import only'],
    ['workerImportsDev', 'worker/ may import only'],
    ['workflowsImportActivityValues', 'Import activities as types only'],
  ])('refuses %s', (name, expected) => {
    expect(
      messages.get(name)?.some((message) => message.startsWith('@typescript-eslint/no-restricted-imports') && message.includes(expected)),
    ).toBe(true);
  });

  it('accepts an import that goes down (api → core)', () => {
    expect(messages.get('apiImportsCore')).toEqual([]);
  });
});
