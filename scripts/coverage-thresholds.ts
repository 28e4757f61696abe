/**
 * The coverage gate of `npm test`, per core folder: reads c8's `json-summary` (per source file:
 * lines, branches, functions, each covered of total) and the thresholds (one JSON file, per folder
 * the lowest percentage of each metric), adds up each folder's files, and answers a table of
 * measured against threshold and whether every folder holds. A folder's percentage is its covered
 * count over its total count (files weigh by their size, not one each). A file c8 lists with nothing
 * covered that compiles to no JavaScript (types only, erased when tsx loads the code that imports
 * it) has nothing that could run and is not counted; every other file is. See docs/coverage.md.
 */
import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import ts from 'typescript';
import { codeOf, messageOf } from '../util/errors.js';
import { parseJsonText } from '../util/json.js';

export const METRICS = ['lines', 'branches', 'functions'] as const;
export type Metric = (typeof METRICS)[number];

export interface Count {
  covered: number;
  total: number;
}

/** Per folder (relative to the project root, `/`-separated), the lowest percentage of each metric. */
export type Thresholds = Map<string, Record<Metric, number>>;

/** Per source file (absolute path, as c8 writes it), its counts. */
export type Summary = Map<string, Record<Metric, Count>>;

/** Bad input (a file missing, not the expected JSON): what, where, how to fix. */
export class CoverageInputError extends Error {}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The thresholds file's content: `{ "<folder>": { "lines": 90, "branches": 80, "functions": 85 }, ... }`. */
export function parseThresholds(value: unknown, source: string): Thresholds {
  const shape = `write {"<folder>": {${METRICS.map((m) => `"${m}": <whole percentage 0-100>`).join(', ')}}, ...}`;
  if (!isRecord(value) || Object.keys(value).length === 0)
    throw new CoverageInputError(`${source}: expected an object naming at least one folder; ${shape}`);
  const thresholds: Thresholds = new Map();
  for (const [folder, entry] of Object.entries(value)) {
    if (folder === '' || folder.startsWith('/') || folder.endsWith('/') || folder.split('/').includes('..'))
      throw new CoverageInputError(
        `${source}: "${folder}" is not a folder of the project (relative, no leading or trailing "/", no ".."); ${shape}`,
      );
    if (!isRecord(entry)) throw new CoverageInputError(`${source}: "${folder}" is not an object; ${shape}`);
    const unknown = Object.keys(entry).filter((key) => !(METRICS as readonly string[]).includes(key));
    if (unknown.length > 0)
      throw new CoverageInputError(
        `${source}: "${folder}" names ${unknown.map((k) => `"${k}"`).join(', ')}, not a metric; the metrics are ${METRICS.join(', ')}`,
      );
    const read = (metric: Metric): number => {
      const threshold = entry[metric];
      if (typeof threshold !== 'number' || !Number.isInteger(threshold) || threshold < 0 || threshold > 100)
        throw new CoverageInputError(
          `${source}: "${folder}".${metric} is ${JSON.stringify(threshold) ?? 'missing'}; give a whole percentage from 0 to 100`,
        );
      return threshold;
    };
    thresholds.set(folder, { lines: read('lines'), branches: read('branches'), functions: read('functions') });
  }
  return thresholds;
}

function countOf(value: unknown): Count | undefined {
  if (!isRecord(value)) return undefined;
  const { covered, total } = value;
  if (typeof covered !== 'number' || typeof total !== 'number' || !(covered >= 0) || !(total >= covered)) return undefined;
  return { covered, total };
}

/** c8's `coverage-summary.json` (istanbul's json-summary): `total` and one entry per file. */
export function parseSummary(value: unknown, source: string): Summary {
  const fix = 'run the tests through c8 with the json-summary reporter (`npm run test:coverage`; .c8rc.json names it)';
  if (!isRecord(value) || !isRecord(value['total'])) throw new CoverageInputError(`${source}: not a c8 json-summary (no "total"); ${fix}`);
  const summary: Summary = new Map();
  for (const [file, entry] of Object.entries(value)) {
    if (file === 'total') continue;
    const read = (metric: Metric): Count => {
      const count = isRecord(entry) ? countOf(entry[metric]) : undefined;
      if (!count) throw new CoverageInputError(`${source}: the entry of ${file} has no valid "${metric}" count; ${fix}`);
      return count;
    };
    summary.set(file, { lines: read('lines'), branches: read('branches'), functions: read('functions') });
  }
  return summary;
}

/**
 * True when TypeScript source compiles to no JavaScript at all (interfaces, types, type-only imports
 * and exports): such a module is never loaded, so c8 lists it with nothing covered.
 */
export function compilesToNothing(source: string): boolean {
  const output = ts.transpileModule(source, {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      removeComments: true,
    },
  }).outputText;
  return output.replace(/export \{\};/g, '').trim() === '';
}

export interface FolderCoverage {
  folder: string;
  /** Files counted. */
  files: number;
  /** Files listed with nothing covered that compile to nothing (not counted), relative to the root. */
  typeOnly: string[];
  counts: Record<Metric, Count>;
}

/** The project-relative, `/`-separated path of a file, or undefined when it is outside `root`. */
function projectPath(root: string, file: string): string | undefined {
  const path = relative(root, file);
  if (path === '' || path.startsWith('..') || path.startsWith(sep)) return undefined;
  return path.split(sep).join('/');
}

/** Adds up each folder's files (a file counts in every folder it is below); `typeOnly` is asked only about files with nothing covered. */
export function folderCoverage(
  summary: Summary,
  root: string,
  folders: readonly string[],
  typeOnly: (file: string) => boolean,
): FolderCoverage[] {
  const rows = folders.map((folder): FolderCoverage => ({
    folder,
    files: 0,
    typeOnly: [],
    counts: { lines: { covered: 0, total: 0 }, branches: { covered: 0, total: 0 }, functions: { covered: 0, total: 0 } },
  }));
  for (const [file, counts] of summary) {
    const path = projectPath(root, file);
    if (path === undefined) continue;
    const mine = rows.filter((row) => path.startsWith(`${row.folder}/`));
    if (mine.length === 0) continue;
    if (counts.lines.covered === 0 && counts.functions.covered === 0 && typeOnly(file)) {
      for (const row of mine) row.typeOnly.push(path);
      continue;
    }
    for (const row of mine) {
      row.files++;
      for (const metric of METRICS) {
        row.counts[metric].covered += counts[metric].covered;
        row.counts[metric].total += counts[metric].total;
      }
    }
  }
  return rows;
}

/** Covered of total in percent, 100 when there is nothing to cover. */
export function percent({ covered, total }: Count): number {
  return total === 0 ? 100 : (covered / total) * 100;
}

export interface Judged {
  folder: string;
  metric: Metric;
  measured: number;
  threshold: number;
  ok: boolean;
}

/** Every folder's metrics against its thresholds; a folder without a counted file fails (it was not measured). */
export function judge(coverage: readonly FolderCoverage[], thresholds: Thresholds): { rows: Judged[]; failures: string[] } {
  const rows: Judged[] = [];
  const failures: string[] = [];
  for (const folder of coverage) {
    const wanted = thresholds.get(folder.folder);
    if (!wanted) continue;
    if (folder.files === 0) {
      failures.push(`${folder.folder}/: no file was measured (is it in .c8rc.json's "include", and did the tests run through c8?)`);
      continue;
    }
    for (const metric of METRICS) {
      const measured = percent(folder.counts[metric]);
      const ok = measured >= wanted[metric];
      rows.push({ folder: folder.folder, metric, measured, threshold: wanted[metric], ok });
      if (!ok)
        failures.push(
          `${folder.folder}/: ${metric} ${shown(measured)}% is below its threshold ${wanted[metric]}% (${folder.counts[metric].covered} of ${folder.counts[metric].total} covered): add tests, or lower the threshold with a reason`,
        );
    }
  }
  return { rows, failures };
}

/** A percentage with two decimals, rounded down (never shown as reaching a threshold it misses). */
function shown(value: number): string {
  return (Math.floor(value * 100) / 100).toFixed(2);
}

/** The table printed by `npm test`: per folder, each metric measured and its threshold. */
export function renderTable(coverage: readonly FolderCoverage[], judged: readonly Judged[]): string {
  const header = ['folder', 'files', ...METRICS];
  const lines = coverage
    .filter((folder) => judged.some((row) => row.folder === folder.folder))
    .map((folder) => [
      `${folder.folder}/`,
      String(folder.files),
      ...METRICS.map((metric) => {
        const row = judged.find((r) => r.folder === folder.folder && r.metric === metric);
        return row ? `${shown(row.measured)}% (min ${row.threshold}%)${row.ok ? '' : ' BELOW'}` : '';
      }),
    ]);
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => (line[i] ?? '').length)));
  const render = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === 1 ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [render(header), ...lines.map(render)].join('\n');
}

export interface CoverageCheckConfig {
  /** c8's json-summary (`coverage/coverage-summary.json`). */
  summaryPath: string;
  /** The thresholds file (`scripts/coverage-thresholds.json`). */
  thresholdsPath: string;
  /** The project root the summary's absolute paths are relative to. */
  root: string;
}

function readJson(path: string, missing: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CoverageInputError(
      codeOf(error) === 'ENOENT' ? `${path} does not exist; ${missing}` : `${path} cannot be read (${messageOf(error)})`,
    );
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new CoverageInputError(`${path} is not JSON (${parsed.reason})`);
  return parsed.value;
}

/** The whole check: the table, the failures, and whether every folder holds. Throws CoverageInputError on bad input. */
export function checkCoverage(config: CoverageCheckConfig): { text: string; failures: string[] } {
  const thresholds = parseThresholds(readJson(config.thresholdsPath, 'it holds the thresholds per folder'), config.thresholdsPath);
  const summary = parseSummary(
    readJson(config.summaryPath, 'run the tests through c8 first (`npm run test:coverage`), which writes it'),
    config.summaryPath,
  );
  const coverage = folderCoverage(summary, config.root, [...thresholds.keys()], (file) => compilesToNothing(readFileSync(file, 'utf8')));
  const { rows, failures } = judge(coverage, thresholds);
  const typeOnly = coverage.flatMap((folder) => folder.typeOnly);
  const text = [
    `coverage per folder (the test processes' coverage of the TypeScript sources; thresholds in ${relative(config.root, config.thresholdsPath)}):`,
    renderTable(coverage, rows),
    ...(typeOnly.length > 0 ? [`not counted, types only (no JavaScript): ${typeOnly.join(', ')}`] : []),
  ].join('\n');
  return { text, failures };
}
