import { SETTINGS } from './declarations';
import { settingsIn, shownDefaultOf } from './setting';
import type { DeclaredSetting } from './setting';

/** The page whose tables between the markers `npm run docs:settings` rewrites (a unit test fails when they differ). */
export const SETTINGS_REFERENCE_PAGE = 'docs/configuration.md';

export const REFERENCE_TABLES = {
  production: () => settingsIn(SETTINGS).filter(({ path }) => path[0] !== 'development'),
  development: () => settingsIn(SETTINGS.development, ['development']),
} as const;

export type ReferenceTable = keyof typeof REFERENCE_TABLES;

export const markersOf = (table: ReferenceTable) => ({
  begin: `<!-- settings:${table}:begin (written by npm run docs:settings from core/settings/declarations; do not edit) -->`,
  end: `<!-- settings:${table}:end -->`,
});

/** A Markdown table: a variable per row, those declared once for several instances (EVM_RPC_URL_<NETWORK>) once. */
export function referenceTable(declared: readonly DeclaredSetting[]): string {
  const rows = new Map<string, string>();
  for (const { setting } of declared) {
    if (rows.has(setting.documentedAs)) continue;
    const meaning = setting.secret ? `${setting.description}; **secret**: never repeated in a message` : setting.description;
    rows.set(setting.documentedAs, `| \`${setting.documentedAs}\` | ${shownDefaultOf(setting)} | ${meaning} |`);
  }
  return ['| variable | default | meaning |', '|---|---|---|', ...rows.values()].join('\n');
}

/** The page with each table between its markers replaced by what the declarations say now. */
export function withSettingsReference(markdown: string): string {
  let page = markdown;
  for (const table of Object.keys(REFERENCE_TABLES) as ReferenceTable[]) {
    const { begin, end } = markersOf(table);
    const start = page.indexOf(begin);
    const stop = page.indexOf(end);
    if (start === -1 || stop < start || page.indexOf(begin, start + 1) !== -1) {
      throw new Error(`the page needs each settings marker once, in order: ${begin} … ${end}`);
    }
    page = `${page.slice(0, start + begin.length)}\n${referenceTable(REFERENCE_TABLES[table]())}\n${page.slice(stop)}`;
  }
  return page;
}
