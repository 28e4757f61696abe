/**
 * What the documentation tests read from Markdown: the anchors of its headings (as GitHub makes them)
 * and its links, outside fenced blocks and code spans; the links of a page that point nowhere; which
 * pages there are; the shell commands of its fenced blocks; the text of a section.
 */
import { readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';

/** One link of a Markdown text: where it points (`target`, as written) and its line. */
export interface MarkdownLink {
  target: string;
  line: number;
}

/** The text with every fenced block's lines blanked (the line count stays, so line numbers hold). */
export function withoutFences(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line;
    })
    .join('\n');
}

/** The text of a heading as GitHub renders it: code spans as their text, no `*` emphasis markers, link texts only. */
function headingText(heading: string): string {
  return heading
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith('`') ? part.slice(1, -1) : part.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\*/g, '')))
    .join('')
    .trim();
}

/** GitHub's anchor of a heading's text: lower case, punctuation dropped (but `-` and `_`), spaces to `-`. */
export function slug(heading: string): string {
  return headingText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of every ATX heading (`#` to `######`) outside fenced blocks; repeats get `-1`, `-2`, ... */
export function headingAnchors(markdown: string): string[] {
  const seen = new Map<string, number>();
  const anchors: string[] = [];
  for (const match of withoutFences(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = slug(match[1] ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.push(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The `## ` headings (level 2) of a text, as written. */
export function sectionHeadings(markdown: string): string[] {
  return [...withoutFences(markdown).matchAll(/^##[ \t]+(.+?)[ \t#]*$/gm)].map((match) => match[1] ?? '');
}

/** Every inline link and image (`[text](target)`, `![alt](target)`) outside fenced blocks and code spans. */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  // Code spans are blanked character for character, so that offsets (and so line numbers) stay.
  const text = withoutFences(markdown).replace(/`[^`]*`/g, (span) => span.replace(/[^\n]/g, ' '));
  for (const match of text.matchAll(/!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*(?:<([^>\n]*)>|([^)\s]+))(?:\s+"[^"]*")?\s*\)/g)) {
    const line = text.slice(0, match.index).split('\n').length;
    links.push({ target: match[1] ?? match[2] ?? '', line });
  }
  return links;
}

/** A target that leaves the repository (a URL with a scheme, e.g. `https:` or `mailto:`). */
export function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target);
}

/**
 * The links of the page `from` (a path relative to the repository root, `/`-separated) that point
 * nowhere: a relative file that `read` does not find (`undefined`), a path leaving the repository, or an
 * anchor (`#x`, `file.md#x`) that no heading of that Markdown page makes. `read` answers a file's text
 * (any text for a file that is not Markdown, whose anchors are not checked). `tolerated` files may be
 * missing. Each problem is one line: `page:line: target: reason`.
 */
export function brokenLinks(
  from: string,
  markdown: string,
  read: (path: string) => string | undefined,
  tolerated: (path: string) => boolean = () => false,
): string[] {
  const problems: string[] = [];
  for (const { target, line } of markdownLinks(markdown)) {
    if (isExternal(target)) continue;
    const hash = target.indexOf('#');
    const file = hash < 0 ? target : target.slice(0, hash);
    const anchor = hash < 0 ? undefined : target.slice(hash + 1);
    const path = file === '' ? from : posix.normalize(posix.join(posix.dirname(from), decodeURIComponent(file))).replace(/\/$/, '');
    const where = `${from}:${line}: ${target}`;
    if (path.startsWith('../') || path === '..' || posix.isAbsolute(path)) {
      problems.push(`${where}: leaves the repository`);
      continue;
    }
    const text = path === from ? markdown : read(path);
    if (text === undefined) {
      if (!tolerated(path)) problems.push(`${where}: no file ${path}`);
      continue;
    }
    if (anchor !== undefined && path.endsWith('.md') && !headingAnchors(text).includes(anchor))
      problems.push(`${where}: ${path} has no heading with the anchor #${anchor}`);
  }
  return problems;
}

/** README.md and every docs/*.md, as paths relative to the repository root. */
export function documentationPages(): string[] {
  const docs = readdirSync(join(PROJECT_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/** One documented command and the fenced block it is in (its index in its page). */
export interface ShellCommand {
  command: string;
  block: number;
}

/** The shell commands of a Markdown page: fenced sh blocks, continuation lines joined, comments and `&&` split. */
export function shellCommands(markdown: string): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let index = 0;
  for (const block of markdown.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)) {
    const joined = (block[1] ?? '').replace(/\\\n\s*/g, ' ');
    for (const line of joined.split('\n')) {
      const command = line.replace(/\s+#.*$/, '').trim();
      if (command === '' || command.startsWith('#')) continue;
      for (const part of command.split(/\s+&&\s+/)) commands.push({ command: part.trim(), block: index });
    }
    index += 1;
  }
  return commands;
}

/** The text of the section under `## heading` (to the next `## ` heading), or '' when there is none. */
export function sectionText(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) return '';
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}
