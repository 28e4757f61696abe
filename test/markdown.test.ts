import assert from 'node:assert/strict';
import { brokenLinks, documentationPages, headingAnchors, isExternal, markdownLinks, sectionHeadings, slug } from './markdown.js';

describe('test/markdown: what the documentation tests read from Markdown', () => {
  it('makes the anchors GitHub makes: lower case, punctuation dropped but - and _, code spans as text', () => {
    assert.equal(slug('Who uses it, and how'), 'who-uses-it-and-how');
    assert.equal(slug('State: `/__mock`'), 'state-__mock');
    assert.equal(slug('Recording (`--record DIR`)'), 'recording---record-dir');
    assert.equal(slug('What is covered: every case derived from the contract'), 'what-is-covered-every-case-derived-from-the-contract');
    assert.equal(slug('**Bold** and [a link](x.md)'), 'bold-and-a-link');
    assert.equal(slug('Größe über 1 MiB'), 'größe-über-1-mib');
  });

  it('numbers repeated headings and ignores # lines of fenced blocks', () => {
    const text = '# Title\n\n## Options\n\n```sh\n# a comment, not a heading\n```\n\n## Options\n\n### Options ###\n';
    assert.deepEqual(headingAnchors(text), ['title', 'options', 'options-1', 'options-2']);
    assert.deepEqual(sectionHeadings(text), ['Options', 'Options']);
  });

  it('finds links and images with their lines, but none in fenced blocks or code spans', () => {
    const text = 'See [a](docs/a.md#x) and ![pic](p.png "title").\n\n```md\n[not](fenced.md)\n```\n\n`[not](span.md)` [b](<b c.md>)\n';
    assert.deepEqual(markdownLinks(text), [
      { target: 'docs/a.md#x', line: 1 },
      { target: 'p.png', line: 1 },
      { target: 'b c.md', line: 7 },
    ]);
    assert.ok(isExternal('https://example.com') && isExternal('mailto:a@b.c') && !isExternal('docs/a.md') && !isExternal('#x'));
  });

  it('reports links to missing files, missing anchors and paths leaving the repository (the link check can fail)', () => {
    const pages = new Map([
      ['docs/a.md', '# A\n\n## Part one\n'],
      ['docs/pic.png', ''],
    ]);
    const read = (path: string): string | undefined => pages.get(path);
    const page = [
      '# Here',
      '[ok](docs/a.md) [ok](docs/a.md#part-one) [ok](#here) [ok](docs/pic.png) [web](https://x.example/y.md#z)',
      '[bad](docs/b.md) [bad](docs/a.md#part-two) [bad](#nowhere) [bad](../outside.md) [later](docs/later.md)',
    ].join('\n');
    assert.deepEqual(
      brokenLinks('README.md', page, read, (path) => path === 'docs/later.md'),
      [
        'README.md:3: docs/b.md: no file docs/b.md',
        'README.md:3: docs/a.md#part-two: docs/a.md has no heading with the anchor #part-two',
        'README.md:3: #nowhere: README.md has no heading with the anchor #nowhere',
        'README.md:3: ../outside.md: leaves the repository',
      ],
    );
    // From a page in docs/, relative paths start there.
    assert.deepEqual(
      brokenLinks('docs/a.md', '[up](../README.md) [pic](pic.png)', (path) => (path === 'README.md' ? '# R' : read(path))),
      [],
    );
  });

  it('documentationPages: README.md first, then every docs/*.md in name order', () => {
    const pages = documentationPages();
    assert.equal(pages[0], 'README.md');
    const docs = pages.slice(1);
    assert.ok(docs.length > 0 && docs.every((page) => /^docs\/[^/]+\.md$/.test(page)), docs.join(', '));
    assert.deepEqual(docs, [...docs].sort());
    assert.ok(docs.includes('docs/interface.md'));
  });
});
