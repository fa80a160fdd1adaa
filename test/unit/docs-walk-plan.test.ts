import fs from 'node:fs';
import path from 'node:path';
import { inlineCode, sectionOf, shellBlockOf, walkPlan } from '../docs-walk/documented-commands';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8');

describe('the docs walk plan, read from the docs', () => {
  it('walks both documented start commands with a balances curl each, the unit tier, and leaves npm test to CI', () => {
    const plan = walkPlan(read);
    expect(plan).toEqual([
      {
        kind: 'server',
        command: 'npm install && npm start',
        source: 'README.md, "Quick start"',
        curl: expect.stringContaining('/v1/partner/balances'),
      },
      { kind: 'skipped', command: 'npm test', source: 'README.md, "Quick start"', reason: expect.any(String) },
      { kind: 'run', command: 'npm run test:unit', source: 'README.md, "Quick start"' },
      {
        kind: 'server',
        command: 'npm run start:cluster',
        source: 'docs/production.md, "Production topology, run here"',
        curl: expect.stringContaining('http://127.0.0.1:3100/v1/partner/balances'),
      },
    ]);
    // The README's curl carries the key placeholder the walk replaces with the printed key.
    expect(plan[0]).toMatchObject({ curl: expect.stringContaining('Bearer pk_…') });
  });

  it('reads a section up to the next heading of its level, a sh block without comments, and inline code outside blocks', () => {
    const markdown = '# T\n## A\nx `one` y\n```sh\nnpm ci   # install\n# only a comment\n\nnpm start\n```\n### Sub\n`two`\n## B\n`three`\n';
    const section = sectionOf(markdown, 'A', 'doc.md');
    expect(shellBlockOf(section, 'doc.md')).toEqual(['npm ci', 'npm start']);
    expect(inlineCode(section)).toEqual(['one', 'two']);
    expect(() => sectionOf(markdown, 'C', 'doc.md')).toThrow('doc.md has no section "## C"');
  });

  it('refuses a start command whose section shows no curl, rather than walking it without one', () => {
    const docs: Record<string, string> = {
      'README.md': '## Quick start\n```sh\nnpm start\n```\n',
      'docs/production.md': '## Production topology, run here\n`npm run start:cluster`\n',
    };
    expect(() => walkPlan((file) => docs[file] ?? '')).toThrow('shows no curl');
  });
});
