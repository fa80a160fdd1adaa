import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'lossless-json';
import { openApiJson } from '../api/openapi/document';
import { parseExactJson } from '../api/http/exact-json';
import { PROJECT_ROOT } from './process-support';

/** `npm run openapi`: prints the OpenAPI document; with `--lint` (`npm run lint:openapi`), Redocly CLI lints it. */
function main(): number {
  // Indented, for people (and for lint problems' line numbers); the numbers keep their digits.
  const json = stringify(parseExactJson(openApiJson(new Date().getUTCFullYear())), undefined, 2) ?? '';
  if (!process.argv.includes('--lint')) {
    process.stdout.write(`${json}\n`);
    return 0;
  }
  const folder = mkdtempSync(path.join(tmpdir(), 'openapi-'));
  try {
    const file = path.join(folder, 'openapi.json');
    writeFileSync(file, json);
    const redocly = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'redocly');
    const result = spawnSync(redocly, ['lint', '--config', path.join(PROJECT_ROOT, 'redocly.yaml'), file], {
      stdio: 'inherit',
      // CI runs offline: no usage data, no check for a newer CLI.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    if (result.error) throw result.error;
    return result.status ?? 1;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

process.exitCode = main();
