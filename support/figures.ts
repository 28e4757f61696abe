/**
 * Figures of the documentation: every number the docs state about this project's own behaviour or
 * size (how many valid creates a strict run sends, the tarball's size, what `npm install` adds, how
 * long something takes) is a named figure of `docs/figures.json`, shown in the Markdown between
 * markers that name it:
 *
 *     The tarball is about <!-- figure tarball-kib -->330<!-- /figure --> KiB.
 *
 * `npm run figures` writes each figure's value between its markers; `npm test` fails when a marked
 * text differs from its figure (`support/figures.test.ts`), when a figure is marked nowhere, and when
 * a figure-like number of the docs is not marked. The value itself comes from the code that measures
 * or counts it, by one of two kinds:
 *
 * - **checked** (a `tolerance`): the test named in `source` measures it on every run and fails when the
 *   measured value is off by more than the tolerance (a share of the figure; 0: exactly);
 * - **recorded** (no tolerance): a duration or anything else a test must not assert on noisy machines;
 *   the command named in `source` measures it, and records it when asked.
 *
 * Either records what it measured, rounded to the figure's `round`, when run with `FIGURES=record`
 * (`FIGURES=record npx mocha test/package/install.test.ts`, then `npm run figures`).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../contract/paths.js';

export const FIGURES_FILE = join(PROJECT_ROOT, 'docs', 'figures.json');

export interface Figure {
  /** The number as the docs state it. */
  value: number;
  /** What it counts or measures, and its unit. */
  what: string;
  /** The test or command that measures it (and records it with `FIGURES=record`). */
  source: string;
  /** Checked figures: how far a measurement may be off, as a share of `value` (0: exactly). Absent: recorded only. */
  tolerance?: number;
  /** Recorded values are rounded to a multiple of this (default 1). */
  round?: number;
}

export type Figures = Record<string, Figure>;

export function readFigures(file = FIGURES_FILE): Figures {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { figures: Figures };
  return parsed.figures;
}

function writeFiguresFile(figures: Figures, file = FIGURES_FILE): void {
  const sorted = Object.fromEntries(Object.entries(figures).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(
    file,
    `${JSON.stringify({ $comment: 'Figures the docs state, between <!-- figure NAME --> markers: see support/figures.ts.', figures: sorted }, null, 2)}\n`,
  );
}

/** How a figure is shown: an integer with thousands separators (`1,293`), a fraction as it is. */
export function renderFigure(value: number): string {
  return Number.isInteger(value) ? value.toLocaleString('en-US') : String(value);
}

const MARKED = /<!-- figure ([a-z0-9-]+) -->(.*?)<!-- \/figure -->/g;

export interface MarkedFigure {
  name: string;
  /** The text between the markers. */
  text: string;
  line: number;
}

/** The marked figures of a Markdown text, in order. */
export function markedFigures(markdown: string): MarkedFigure[] {
  return [...markdown.matchAll(MARKED)].map((match) => ({
    name: match[1] ?? '',
    text: match[2] ?? '',
    line: markdown.slice(0, match.index).split('\n').length,
  }));
}

/** The Markdown with each marked figure showing its value (a name without a figure is left as it is). */
export function writeMarkedFigures(markdown: string, figures: Figures): string {
  return markdown.replace(MARKED, (whole, name: string) => {
    const figure = figures[name];
    return figure === undefined ? whole : `<!-- figure ${name} -->${renderFigure(figure.value)}<!-- /figure -->`;
  });
}

/** `FIGURES=record`: measuring code records its figures instead of checking them. */
export function recording(env: NodeJS.ProcessEnv = process.env): boolean {
  return env['FIGURES'] === 'record';
}

/** Rounds to the figure's `round` (a multiple of it; at least one step). */
export function rounded(figure: Pick<Figure, 'round'>, measured: number): number {
  const step = figure.round ?? 1;
  // As many decimals as the step has (0.1: one), so 3 × 0.1 is 0.3.
  const decimals = (String(step).split('.')[1] ?? '').length;
  return Number(Math.max(step, Math.round(measured / step) * step).toFixed(decimals));
}

/**
 * What a measuring test calls with what it measured: for a checked figure, fails when the measurement
 * is off by more than the tolerance, naming the fix; a recorded figure is not compared (no timing
 * assertions). With `FIGURES=record` the rounded measurement is written to docs/figures.json instead.
 */
export function figure(name: string, measured: number, file = FIGURES_FILE): void {
  const figures = readFigures(file);
  const stated = figures[name];
  assert.ok(stated, `docs/figures.json has no figure "${name}": add it (what, source, tolerance or none, round)`);
  if (recording()) {
    figures[name] = { ...stated, value: rounded(stated, measured) };
    writeFiguresFile(figures, file);
    return;
  }
  if (stated.tolerance === undefined) return;
  const off = Math.abs(measured - stated.value);
  assert.ok(
    off <= stated.tolerance * stated.value,
    `the docs state ${renderFigure(stated.value)} for "${name}" (${stated.what}), measured ${measured}` +
      `${stated.tolerance > 0 ? ` (more than ${Math.round(stated.tolerance * 100)}% off)` : ''}: ` +
      `record it (FIGURES=record npx mocha ${stated.source}) and run npm run figures`,
  );
}

/** The pages that state figures: the README, ARCHITECTURE.md, the contract's README and docs/*.md. */
export function figurePages(): string[] {
  const docs = readdirSync(join(PROJECT_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', 'ARCHITECTURE.md', 'contract/README.md', ...docs];
}

/** Writes every figure's value between its markers in every page; answers the pages changed. */
export function writeAllFigures(): string[] {
  const figures = readFigures();
  const changed: string[] = [];
  for (const page of figurePages()) {
    const text = readFileSync(join(PROJECT_ROOT, page), 'utf8');
    const next = writeMarkedFigures(text, figures);
    if (next !== text) {
      writeFileSync(join(PROJECT_ROOT, page), next);
      changed.push(page);
    }
  }
  return changed;
}

// `npm run figures`.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const changed = writeAllFigures();
  process.stdout.write(changed.length === 0 ? 'figures: every page shows its figures\n' : `figures: wrote ${changed.join(', ')}\n`);
}
