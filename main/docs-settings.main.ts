import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SETTINGS_REFERENCE_PAGE, withSettingsReference } from '../core/settings/reference';
import { PROJECT_ROOT } from './process-support';

/** `npm run docs:settings`: rewrites docs/configuration.md's settings tables from core/settings/declarations/. */
function main(): void {
  const page = path.join(PROJECT_ROOT, SETTINGS_REFERENCE_PAGE);
  const before = readFileSync(page, 'utf8');
  const after = withSettingsReference(before);
  if (after === before) {
    process.stdout.write(`${SETTINGS_REFERENCE_PAGE} is up to date\n`);
    return;
  }
  writeFileSync(page, after);
  process.stdout.write(`${SETTINGS_REFERENCE_PAGE}: settings tables rewritten\n`);
}

main();
