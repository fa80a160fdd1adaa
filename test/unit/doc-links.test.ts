import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { anchorsOf, brokenLinks, githubSlug, linksIn } from '../support/markdown-links';

/**
 * The README routes readers into docs/ (issue 18): a link that leads nowhere, or to a heading
 * that was renamed, strands the reader. Every relative link of README.md and docs/*.md must
 * resolve, and the README must stay a page that routes, not a manual.
 */
const ROOT = path.join(__dirname, '..', '..');
const README_MAX_LINES = 250;

const DOCUMENTS = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
];

describe('the documentation', () => {
  it.each(DOCUMENTS)('%s: every relative link reaches an existing file and heading', (file) => {
    expect(brokenLinks(ROOT, file)).toEqual([]);
  });

  it('links README.md and every page of docs/ from the README or another page', () => {
    const linked = new Set(
      DOCUMENTS.flatMap((file) =>
        linksIn(fs.readFileSync(path.join(ROOT, file), 'utf8'))
          .filter((link) => !/^[a-z]+:/i.test(link.target) && !link.target.startsWith('#'))
          .map((link) => path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), link.target.split('#')[0]!))),
      ),
    );
    expect(DOCUMENTS.filter((file) => file !== 'README.md' && !linked.has(file))).toEqual([]);
  });

  it(`keeps README.md at most ${README_MAX_LINES} lines`, () => {
    const lines = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n');
    expect(lines.length).toBeLessThanOrEqual(README_MAX_LINES);
  });
});

describe('GitHub heading anchors', () => {
  it.each([
    ['Payload encryption: what Temporal stores', 'payload-encryption-what-temporal-stores'],
    ["A partner's round trip", 'a-partners-round-trip'],
    ['Reads: history pages, API keys', 'reads-history-pages-api-keys'],
    ['`npm run ops` and snake_case', 'npm-run-ops-and-snake_case'],
    ['Rails: what is real, what is simulated', 'rails-what-is-real-what-is-simulated'],
    ['Hostile review (issue 17)', 'hostile-review-issue-17'],
    ['A [linked](other.md) title', 'a-linked-title'],
    ['Ünïcode stays — dashes go', 'ünïcode-stays--dashes-go'],
  ])('%s → #%s', (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });

  it('numbers a repeated heading as GitHub does, and ignores headings in code', () => {
    const markdown = ['# Tests', '## Tests', '```sh', '# not a heading', '```', '### Tests ###'].join('\n');
    expect([...anchorsOf(markdown)]).toEqual(['tests', 'tests-1', 'tests-2']);
  });
});

describe('the link checker', () => {
  let root: string;

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'doc-links-'));
    fs.mkdirSync(path.join(root, 'docs'));
    fs.writeFileSync(path.join(root, 'docs', 'guide.md'), '# Guide\n\n## Set up: step by step\n');
    fs.writeFileSync(path.join(root, 'code.ts'), 'export {};\n');
  });

  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  const check = (markdown: string) => {
    fs.writeFileSync(path.join(root, 'README.md'), markdown);
    return brokenLinks(root, 'README.md').map(({ line, target, problem }) => ({ line, target, problem }));
  };

  it('accepts links to files, to their headings, to its own headings, and external URLs', () => {
    const markdown = [
      '# Top',
      '',
      'See [the guide](docs/guide.md), [setting up](docs/guide.md#set-up-step-by-step), [top](#top),',
      '[code](code.ts), [a line](code.ts#L1-L2), [a folder](docs) and [the site](https://example.com/x#y).',
      '',
      '[guide]: docs/guide.md',
    ].join('\n');
    expect(check(markdown)).toEqual([]);
  });

  it('names each link to a missing file, a missing heading, or outside the repository', () => {
    const markdown = [
      '# Top',
      '',
      '[gone](docs/gone.md) and [renamed](docs/guide.md#setup)',
      'on two lines: [mine](#nowhere)',
      '',
      '![outside](../elsewhere.md) [rooted](/etc/hosts) [not markdown](code.ts#top)',
      '',
      '[ref]: docs/missing.md',
    ].join('\n');
    expect(check(markdown)).toEqual([
      { line: 3, target: 'docs/gone.md', problem: 'no such file: docs/gone.md' },
      { line: 3, target: 'docs/guide.md#setup', problem: 'no heading #setup in docs/guide.md' },
      { line: 3, target: '#nowhere', problem: 'no heading #nowhere in README.md' },
      { line: 6, target: '../elsewhere.md', problem: 'points outside the repository' },
      { line: 6, target: '/etc/hosts', problem: 'points outside the repository' },
      { line: 6, target: 'code.ts#top', problem: '#top: only line anchors (#L10) point into a file that is not Markdown' },
      { line: 8, target: 'docs/missing.md', problem: 'no such file: docs/missing.md' },
    ]);
  });

  it('does not read links inside code blocks or inline code, even when the code wraps', () => {
    const markdown = [
      '```md',
      '[in a fence](missing.md)',
      '```',
      '',
      'Not a link: `[in code](missing.md)`, nor `this',
      '[wrapped](missing.md)` one.',
    ].join('\n');
    expect(check(markdown)).toEqual([]);
  });
});
