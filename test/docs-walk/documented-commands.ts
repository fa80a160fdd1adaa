/**
 * What the docs walk runs, read from the docs themselves: the README's quick-start block and the
 * start commands the docs give, each with the curl its section shows. Reading them (instead of a
 * copy in the walk) is the point: a command changed in the docs is the command walked.
 */

/** A documented command that serves: run to its first healthy answer, then the section's curl, then Ctrl-C. */
export interface ServerStep {
  kind: 'server';
  command: string;
  curl: string;
  source: string;
}

/** A documented command that ends on its own: it must exit 0. */
export interface RunStep {
  kind: 'run';
  command: string;
  source: string;
}

/** A documented command the walk does not run, and why. */
export interface SkippedStep {
  kind: 'skipped';
  command: string;
  source: string;
  reason: string;
}

export type WalkStep = ServerStep | RunStep | SkippedStep;

/** The documents the walk reads, by path from the project root. */
export type ReadDoc = (file: string) => string;

/** The commands that start a server, in the forms the docs give them. */
const START_COMMANDS = ['npm start', 'npm run start:cluster'];

/** CI's own test command: `.ci/run` runs it on the same commit; the walk would only repeat it. */
const CI_TEST_COMMAND = 'npm test';

const QUICK_START = { file: 'README.md', heading: 'Quick start' };
const CLUSTER = { file: 'docs/production.md', heading: 'Production topology, run here' };

/** Every step of the walk, in order: the README's quick start, then the production topology run here. */
export function walkPlan(read: ReadDoc): WalkStep[] {
  const quickStart = sectionOf(read(QUICK_START.file), QUICK_START.heading, QUICK_START.file);
  const quickSource = `${QUICK_START.file}, "${QUICK_START.heading}"`;
  const steps: WalkStep[] = shellBlockOf(quickStart, quickSource).map((command) => stepOf(command, quickStart, quickSource));

  const cluster = sectionOf(read(CLUSTER.file), CLUSTER.heading, CLUSTER.file);
  const clusterSource = `${CLUSTER.file}, "${CLUSTER.heading}"`;
  const clusterStart = inlineCode(cluster).find((code) => code === 'npm run start:cluster');
  if (clusterStart === undefined) throw new Error(`${clusterSource} no longer gives \`npm run start:cluster\``);
  steps.push(stepOf(clusterStart, cluster, clusterSource));
  return steps;
}

function stepOf(command: string, section: string, source: string): WalkStep {
  if (START_COMMANDS.some((start) => command === start || command.endsWith(`&& ${start}`))) {
    const curl = inlineCode(section).find((code) => code.startsWith('curl '));
    if (curl === undefined) throw new Error(`${source} starts \`${command}\` but shows no curl to try it with`);
    return { kind: 'server', command, curl, source };
  }
  if (command === CI_TEST_COMMAND) {
    return { kind: 'skipped', command, source, reason: 'CI runs it itself on this commit (.ci/run)' };
  }
  return { kind: 'run', command, source };
}

/** The text under a `## heading`, up to the next heading of that level. */
export function sectionOf(markdown: string, heading: string, file: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`## ${heading}`));
  if (start === -1) throw new Error(`${file} has no section "## ${heading}"`);
  const end = lines.findIndex((line, index) => index > start && line.startsWith('## '));
  return lines.slice(start + 1, end === -1 ? undefined : end).join('\n');
}

/** The commands of a section's first ```sh block, one per line, their `#` comments removed. */
export function shellBlockOf(section: string, source: string): string[] {
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  if (block === null) throw new Error(`${source} has no \`\`\`sh block`);
  return (block[1] ?? '')
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** Every `inline code` span of a text, outside fenced blocks. */
export function inlineCode(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1] ?? '');
}
