/**
 * The README is a front door: short, a table of contents at the top that names its
 * sections, and links into docs/ for the reference material. Every relative link of README.md and
 * docs/*.md points to a file of the repository, and to a heading of it where an anchor is given.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import { brokenLinks, documentationPages, headingAnchors, markdownLinks, sectionHeadings, sectionText, slug } from './markdown.js';

/** The most lines the README may have (about 300: a front door read in one sitting). */
const README_MAX_LINES = 320;

/**
 * Pages the README's index links that other branches add: until those branches are merged they may be
 * missing. The lead empties this list once they are merged.
 */
const PENDING_DOCS_UNTIL_MERGED: readonly string[] = [];

/** The heading of the README's table of contents. */
const CONTENTS = 'Contents';
/** The heading of the README's documentation index. */
const INDEX = 'Documentation';

/** The text of a file or folder of the repository ('' for a folder), or undefined when there is none. */
function readRepositoryFile(path: string): string | undefined {
  try {
    const full = join(PROJECT_ROOT, path);
    return statSync(full).isDirectory() ? '' : readFileSync(full, 'utf8');
  } catch {
    return undefined;
  }
}

describe('README.md as a front door, and the links of README.md and docs/', () => {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');

  it(`README.md has at most ${README_MAX_LINES} lines`, () => {
    const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines: move reference material into docs/`);
  });

  it('README.md opens with a table of contents whose links name each of its sections', () => {
    const sections = sectionHeadings(readme);
    assert.equal(sections[0], CONTENTS, `the first section of README.md is "## ${CONTENTS}"`);
    const start = readme.indexOf(`\n## ${CONTENTS}\n`);
    const end = readme.indexOf('\n## ', start + 1);
    const toc = markdownLinks(readme.slice(start, end)).map((link) => link.target);
    const anchors = headingAnchors(readme);
    assert.deepEqual(
      toc.filter((target) => !target.startsWith('#') || !anchors.includes(target.slice(1))),
      [],
      'table-of-contents links without a heading of README.md',
    );
    assert.deepEqual(
      toc,
      sections.slice(1).map((section) => `#${slug(section)}`),
      'the table of contents lists every section of README.md, in order',
    );
  });

  it('every relative link of README.md and docs/*.md names an existing file, and a heading of it where an anchor is given', () => {
    const pages = documentationPages();
    assert.ok(pages.length > 5, `the documentation pages: ${pages.join(', ')}`);
    const problems: string[] = [];
    let links = 0;
    for (const page of pages) {
      const text = readFileSync(join(PROJECT_ROOT, page), 'utf8');
      links += markdownLinks(text).length;
      problems.push(...brokenLinks(page, text, readRepositoryFile, (path) => PENDING_DOCS_UNTIL_MERGED.includes(path)));
    }
    assert.ok(links > 50, `links found: ${links}`);
    assert.deepEqual(problems, []);
  });

  it("the README's documentation index (its section Documentation) links every page of docs/ exactly once", () => {
    const index = sectionText(readme, INDEX);
    assert.ok(index !== '', `README.md has a section "## ${INDEX}"`);
    const linked = markdownLinks(index).map((link) => link.target.split('#')[0] ?? '');
    const pages = documentationPages().filter((page) => page.startsWith('docs/'));
    const times = (page: string): number => linked.filter((target) => target === page).length;
    assert.deepEqual(
      pages.filter((page) => times(page) !== 1).map((page) => `${page}: linked ${times(page)} times`),
      [],
    );
  });

  it("the README's documentation index links the pages other branches add (tolerated missing until merged)", () => {
    const targets = new Set(markdownLinks(readme).map((link) => link.target.split('#')[0]));
    assert.deepEqual(
      PENDING_DOCS_UNTIL_MERGED.filter((page) => !targets.has(page)),
      [],
    );
  });
});
