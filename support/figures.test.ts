import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import { figure, figurePages, markedFigures, readFigures, renderFigure, rounded, writeMarkedFigures, type Figures } from './figures.js';

/** Pages whose numbers are not figures of this mechanism, with the reason. */
const OTHER_PAGES: Record<string, string> = {
  'docs/performance.md': "the bench's report: its numbers are the output of `npm run bench` runs, shown as printed there",
  'docs/proxy-performance.md':
    "the bench's report on the proxy: its numbers are the output of `npm run bench` runs, shown as printed there",
};

/** Figure-like texts left unmarked for now, with the reason (each must still be there: a stale entry fails). */
const LEFT_UNMARKED: { page: string; text: string; reason: string }[] = [
  {
    page: 'docs/coverage.md',
    text: 'about 20 MB',
    reason: "the cost of coverage in `npm test`, measured with `npm test`'s duration (recorded by `npm run test:time`, not a figure yet)",
  },
];

/** The recorded `npm test` sentence: its numbers come from docs/generated/test-time.json, and test/test-time.test.ts holds them to it. */
const RECORDED_RUN = 'The last recorded `npm test` (';

const N = String.raw`\d[\d,]*(?:\.\d+)?`;
/**
 * What counts as a figure: counts of tests, valid creates, packages, requests, faults, the tarball's
 * files; sizes and durations stated as "about", "in about", "took". Limits and constants (512 MiB,
 * 16 KiB) are not figures: they are the code's values, documented where they are set.
 */
const FIGURE_LIKE = new RegExp(
  [
    String.raw`\b${N} (?:tests|valid creates?|packages)\b`,
    String.raw`\b${N} KiB with ${N} files\b`,
    String.raw`\b${N} of ${N} faults\b`,
    String.raw`\babout ${N} (?:requests|KiB|MB|minutes?)\b`,
    String.raw`\bin about ${N} ?(?:s|ms|seconds?|minutes?)\b`,
    String.raw`\btook ${N} ?(?:s|ms|seconds?|minutes?)\b`,
    String.raw`\b${N} minutes (?:on|for)\b`,
  ].join('|'),
  'g',
);

/** The figure-like texts of a page outside figure markers, with their lines. */
function unmarked(text: string): { text: string; line: number }[] {
  const blanked = text.replace(/<!-- figure [\s\S]*?<!-- \/figure -->/g, (marked) => marked.replace(/[^\n]/g, ' '));
  return [...blanked.matchAll(FIGURE_LIKE)].map((match) => ({ text: match[0], line: blanked.slice(0, match.index).split('\n').length }));
}

const read = (page: string): string => readFileSync(join(PROJECT_ROOT, page), 'utf8');

describe('support/figures: the figures the docs state', () => {
  const figures = readFigures();

  it('finds marked figures, writes their values (thousands grouped), rounds what it records', () => {
    const text = 'a <!-- figure b-c -->12<!-- /figure --> d\n<!-- figure e -->x<!-- /figure --> <!-- figure unknown -->7<!-- /figure -->';
    assert.deepEqual(markedFigures(text), [
      { name: 'b-c', text: '12', line: 1 },
      { name: 'e', text: 'x', line: 2 },
      { name: 'unknown', text: '7', line: 2 },
    ]);
    const known: Figures = { 'b-c': { value: 1293, what: '', source: '' }, e: { value: 0.5, what: '', source: '' } };
    assert.equal(
      writeMarkedFigures(text, known),
      'a <!-- figure b-c -->1,293<!-- /figure --> d\n<!-- figure e -->0.5<!-- /figure --> <!-- figure unknown -->7<!-- /figure -->',
    );
    assert.equal(renderFigure(47), '47');
    assert.equal(rounded({ round: 10 }, 264.9), 260);
    assert.equal(rounded({ round: 10 }, 3), 10, 'at least one step');
    assert.equal(rounded({}, 27.6), 28);
    assert.equal(rounded({ round: 0.1 }, 0.2987), 0.3);
    assert.equal(renderFigure(rounded({ round: 0.1 }, 0.2987)), '0.3');
  });

  it('figure(): within the tolerance passes; off, it fails saying how to record it; a recorded figure is not compared; FIGURES=record writes it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'figures-'));
    const file = join(dir, 'figures.json');
    const previous = process.env['FIGURES'];
    try {
      writeFileSync(
        file,
        JSON.stringify({
          figures: {
            size: { value: 100, what: 'KiB of x', source: 'x.test.ts', tolerance: 0.1, round: 10 },
            count: { value: 5, what: 'things', source: 'y.test.ts', tolerance: 0 },
            time: { value: 9, what: 'minutes of z', source: 'z.check.ts' },
          },
        }),
      );
      delete process.env['FIGURES'];
      figure('size', 109, file);
      figure('count', 5, file);
      figure('time', 1000, file);
      assert.throws(
        () => figure('size', 111, file),
        /the docs state 100 for "size" \(KiB of x\), measured 111 \(more than 10% off\): record it \(FIGURES=record npx mocha x\.test\.ts\) and run npm run figures/,
      );
      assert.throws(() => figure('count', 6, file), /the docs state 5 for "count" \(things\), measured 6: record it/);
      assert.throws(() => figure('nothing', 1, file), /docs\/figures\.json has no figure "nothing"/);
      process.env['FIGURES'] = 'record';
      figure('size', 264.9, file);
      figure('time', 3.4, file);
      const recorded = readFigures(file);
      assert.equal(recorded['size']?.value, 260);
      assert.equal(recorded['time']?.value, 3);
      assert.equal(recorded['count']?.value, 5);
    } finally {
      if (previous === undefined) delete process.env['FIGURES'];
      else process.env['FIGURES'] = previous;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every marked figure of the docs names a figure of docs/figures.json and shows its value (`npm run figures` writes them)', () => {
    const wrong: string[] = [];
    for (const page of figurePages()) {
      // Markdown reads a line that starts with a comment as an HTML block: the paragraph would break there.
      for (const [i, line] of read(page).split('\n').entries())
        if (line.startsWith('<!-- figure ')) wrong.push(`${page}:${i + 1}: a line starts with a figure marker: put a word before it`);
      for (const marked of markedFigures(read(page))) {
        const stated = figures[marked.name];
        if (stated === undefined) wrong.push(`${page}:${marked.line}: no figure "${marked.name}" in docs/figures.json`);
        else if (marked.text !== renderFigure(stated.value))
          wrong.push(
            `${page}:${marked.line}: "${marked.name}" shows ${marked.text}, the figure is ${renderFigure(stated.value)}: run npm run figures`,
          );
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('every figure is marked in the docs, and measured by its source (a file that calls figure() with its name)', () => {
    const marked = new Set(figurePages().flatMap((page) => markedFigures(read(page)).map((m) => m.name)));
    const problems: string[] = [];
    for (const [name, stated] of Object.entries(figures)) {
      if (!marked.has(name)) problems.push(`${name}: marked on no page`);
      const source = join(PROJECT_ROOT, stated.source);
      if (!existsSync(source)) problems.push(`${name}: its source ${stated.source} does not exist`);
      else if (!readFileSync(source, 'utf8').includes(`figure('${name}'`))
        problems.push(`${name}: ${stated.source} does not call figure('${name}', ...)`);
      if (stated.tolerance !== undefined && !(stated.tolerance >= 0 && stated.tolerance < 1))
        problems.push(`${name}: tolerance ${stated.tolerance}`);
    }
    assert.deepEqual(problems, []);
  });

  it('finds figure-like numbers outside markers (the check can fail)', () => {
    const text =
      'passed (1,287 tests) and took 10 minutes; 47 valid creates, about 260 requests in about 1 s;\n' +
      'about 330 KiB with 295 files; 243 of 243 faults; 512 MiB; <!-- figure x -->53<!-- /figure --> valid creates';
    assert.deepEqual(
      unmarked(text).map((found) => found.text),
      ['1,287 tests', 'took 10 minutes', '47 valid creates', 'about 260 requests', 'in about 1 s', 'about 330 KiB', '243 of 243 faults'],
    );
  });

  it('the docs state no figure-like number outside figure markers', () => {
    const found: string[] = [];
    for (const page of figurePages().filter((page) => !(page in OTHER_PAGES))) {
      const text = read(page);
      const lines = text.split('\n');
      for (const hit of unmarked(text))
        if (lines[hit.line - 1]?.includes(RECORDED_RUN) === true) continue;
        else if (!LEFT_UNMARKED.some((left) => left.page === page && left.text === hit.text))
          found.push(`${page}:${hit.line}: ${hit.text}`);
    }
    assert.deepEqual(found, [], 'add each as a figure of docs/figures.json, measured by a test (support/figures.ts)');
    const stale = LEFT_UNMARKED.filter((left) => !read(left.page).includes(left.text)).map((left) => `${left.page}: ${left.text}`);
    assert.deepEqual(stale, [], 'texts left unmarked that are gone: remove them from LEFT_UNMARKED');
  });
});
