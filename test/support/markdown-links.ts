import fs from 'node:fs';
import path from 'node:path';

/**
 * The relative links of our Markdown files, checked the way GitHub renders them: a link's file
 * must exist inside the repository and its `#anchor` must be a heading of that file. No Markdown
 * parser is installed, so this reads only what our docs use: fenced code blocks (whose contents
 * are not Markdown), inline code spans, inline links `[text](target)`, reference definitions
 * `[name]: target`, and ATX headings (`## Title`).
 */

export interface MarkdownLink {
  /** 1-based line where the link's paragraph starts (a link may wrap onto the next line). */
  line: number;
  target: string;
}

export interface BrokenLink extends MarkdownLink {
  file: string;
  problem: string;
}

/** A URL with a scheme (`https:`, `mailto:`) or protocol-relative: not a file of this repository. */
const EXTERNAL = /^([a-z][a-z0-9+.-]*:|\/\/)/i;
/** `[text](target)` or `![alt](target "title")`; the text may hold one level of brackets. */
const INLINE_LINK = /!?\[(?:[^[\]]|\[[^[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
/** GitHub line anchors into source files: `#L10`, `#L10-L20`. */
const LINE_ANCHOR = /^L\d+(-L\d+)?$/;

/** The lines outside fenced code blocks, each with its 1-based number. */
function proseLines(markdown: string): { number: number; text: string }[] {
  const lines: { number: number; text: string }[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const opening = FENCE.exec(text)?.[1];
    if (fence === undefined && opening !== undefined) {
      fence = opening;
    } else if (fence !== undefined) {
      // A fence closes with at least as many of the same character, and nothing after them.
      if (opening !== undefined && opening[0] === fence[0] && opening.length >= fence.length && text.trim() === opening) fence = undefined;
    } else {
      lines.push({ number: index + 1, text });
    }
  });
  return lines;
}

/** Inline code is not Markdown: `[a](b)` inside backticks is no link. Spans may cross lines of a paragraph. */
function withoutCodeSpans(text: string): string {
  return text.replace(/(`+)[\s\S]*?[^`]\1(?!`)|(`+)\2(?!`)/g, '');
}

/** Every link target in the Markdown, outside code. */
export function linksIn(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  let paragraph: { number: number; text: string }[] = [];
  const flush = () => {
    if (paragraph.length === 0) return;
    const text = withoutCodeSpans(paragraph.map((line) => line.text).join('\n'));
    for (const match of text.matchAll(INLINE_LINK)) links.push({ line: paragraph[0]!.number, target: match[1]! });
    paragraph = [];
  };
  let previous = 0;
  for (const line of proseLines(markdown)) {
    // A fence, a blank line or a heading ends a paragraph: code spans never cross them.
    if (line.number !== previous + 1 || line.text.trim() === '' || HEADING.test(line.text)) flush();
    previous = line.number;
    const definition = REFERENCE_DEFINITION.exec(line.text);
    if (definition) {
      flush();
      links.push({ line: line.number, target: definition[1]! });
    } else if (line.text.trim() !== '') {
      paragraph.push(line);
      // A heading is a block of one line.
      if (HEADING.test(line.text)) flush();
    }
  }
  flush();
  return links;
}

/**
 * GitHub's anchor for a heading (github-slugger): the rendered text in lower case, every
 * character that is not a letter, mark, number, connector (`_`), space or hyphen dropped, then
 * each space a hyphen.
 */
export function githubSlug(heading: string): string {
  const rendered = heading
    .replace(/!?\[((?:[^[\]]|\[[^[\]]*\])*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim();
  return rendered
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings; a repeated slug gets `-1`, `-2`, … as on GitHub. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of proseLines(markdown)) {
    const heading = HEADING.exec(line.text);
    if (!heading) continue;
    const slug = githubSlug(heading[2]!);
    let anchor = slug;
    for (let repeat = 1; anchors.has(anchor); repeat += 1) anchor = `${slug}-${repeat}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** What is wrong with each relative link of `file` (a path inside `root`); empty when every one resolves. */
export function brokenLinks(root: string, file: string): BrokenLink[] {
  const source = path.join(root, file);
  const broken: BrokenLink[] = [];
  for (const link of linksIn(fs.readFileSync(source, 'utf8'))) {
    if (EXTERNAL.test(link.target)) continue;
    const problem = problemOf(root, source, link.target);
    if (problem) broken.push({ file, ...link, problem });
  }
  return broken;
}

function problemOf(root: string, source: string, target: string): string | undefined {
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const resolved = pathPart === '' ? source : path.resolve(path.dirname(source), pathPart);
  const inside = path.relative(root, resolved);
  if (pathPart.startsWith('/') || inside.startsWith('..') || path.isAbsolute(inside)) return 'points outside the repository';
  if (!fs.existsSync(resolved)) return `no such file: ${inside}`;
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith('.md')) {
    return LINE_ANCHOR.test(anchor) ? undefined : `#${anchor}: only line anchors (#L10) point into a file that is not Markdown`;
  }
  if (fs.statSync(resolved).isDirectory()) return `#${anchor} on a folder`;
  return anchorsOf(fs.readFileSync(resolved, 'utf8')).has(anchor) ? undefined : `no heading #${anchor} in ${inside}`;
}
