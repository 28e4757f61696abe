/**
 * The per-folder coverage gate (`coverage-thresholds.ts`, CLI `coverage-check.ts`) on summaries
 * written here: folders add up counts (not percentages), files outside the folders and type-only
 * files are left out, a folder below a threshold fails naming it, bad input is a clear error, and the
 * CLI's exit codes. The real thresholds file is checked to be valid and to name the core folders.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import {
  checkCoverage,
  compilesToNothing,
  CoverageInputError,
  folderCoverage,
  judge,
  parseSummary,
  parseThresholds,
  percent,
  renderTable,
  type Count,
  type Metric,
  type Summary,
} from './coverage-thresholds.js';

const ROOT = '/project';
const count = (covered: number, total: number): Count => ({ covered, total });
const file = (lines: Count, branches = count(1, 1), functions = count(1, 1)): Record<Metric, Count> => ({ lines, branches, functions });
/** c8's json-summary entry of counts (with the members c8 writes besides them). */
const entry = (counts: Record<Metric, Count>) =>
  Object.fromEntries(
    ['lines', 'statements', 'functions', 'branches'].map((metric) => {
      const c = metric === 'statements' ? counts.lines : counts[metric as Metric];
      return [metric, { ...c, skipped: 0, pct: percent(c) }];
    }),
  );

describe('scripts/coverage-thresholds', () => {
  it('parses the thresholds: per folder a whole percentage for each metric; anything else is a clear error', () => {
    const parsed = parseThresholds(
      { mock: { lines: 90, branches: 80, functions: 85 }, 'mock/proxy': { lines: 0, branches: 100, functions: 1 } },
      't.json',
    );
    assert.deepEqual(parsed.get('mock'), { lines: 90, branches: 80, functions: 85 });
    assert.deepEqual([...parsed.keys()], ['mock', 'mock/proxy']);
    const refused: [unknown, RegExp][] = [
      [[], /expected an object naming at least one folder/],
      [{}, /at least one folder/],
      [{ mock: 90 }, /"mock" is not an object/],
      [{ mock: { lines: 90, branches: 80 } }, /"mock"\.functions is missing; give a whole percentage from 0 to 100/],
      [{ mock: { lines: 90.5, branches: 80, functions: 1 } }, /"mock"\.lines is 90\.5/],
      [{ mock: { lines: '90', branches: 80, functions: 1 } }, /"mock"\.lines is "90"/],
      [{ mock: { lines: 101, branches: 80, functions: 1 } }, /"mock"\.lines is 101/],
      [
        { mock: { lines: 90, branches: 80, functions: 1, statements: 90 } },
        /"mock" names "statements", not a metric; the metrics are lines, branches, functions/,
      ],
      [{ '../etc': { lines: 1, branches: 1, functions: 1 } }, /"\.\.\/etc" is not a folder of the project/],
      [{ 'mock/': { lines: 1, branches: 1, functions: 1 } }, /"mock\/" is not a folder/],
    ];
    for (const [value, message] of refused)
      assert.throws(
        () => parseThresholds(value, 't.json'),
        (error: unknown) => error instanceof CoverageInputError && error.message.startsWith('t.json: ') && message.test(error.message),
        JSON.stringify(value),
      );
  });

  it("parses c8's json-summary; a file that is not one says so and how to make one", () => {
    const summary = parseSummary({ total: entry(file(count(1, 2))), '/project/mock/a.ts': entry(file(count(3, 4))) }, 's.json');
    assert.deepEqual([...summary.keys()], ['/project/mock/a.ts']);
    assert.deepEqual(summary.get('/project/mock/a.ts')?.lines, { covered: 3, total: 4 });
    assert.throws(
      () => parseSummary({ '/project/mock/a.ts': {} }, 's.json'),
      /s\.json: not a c8 json-summary \(no "total"\); run the tests through c8/,
    );
    assert.throws(
      () => parseSummary({ total: {}, '/project/mock/a.ts': { lines: { covered: 5, total: 4 } } }, 's.json'),
      /the entry of \/project\/mock\/a\.ts has no valid "lines" count/,
    );
  });

  it('adds up counts per folder (a big file weighs more), nested folders included, files outside the folders left out', () => {
    const summary: Summary = new Map([
      ['/project/mock/small.ts', file(count(1, 1))],
      ['/project/mock/big.ts', file(count(0, 9), count(2, 4), count(0, 2))],
      ['/project/mock/proxy/app.ts', file(count(5, 10))],
      ['/project/mockery/x.ts', file(count(0, 100))],
      ['/project/client/index.ts', file(count(0, 100))],
      ['/project/<define:import.meta>', file(count(1, 1))],
      ['/elsewhere/mock/a.ts', file(count(0, 100))],
    ]);
    const [mock, proxy] = folderCoverage(summary, ROOT, ['mock', 'mock/proxy'], () => false);
    assert.deepEqual(mock, {
      folder: 'mock',
      files: 3,
      typeOnly: [],
      counts: { lines: count(6, 20), branches: count(4, 6), functions: count(2, 4) },
    });
    assert.equal(percent(mock?.counts.lines ?? count(0, 0)), 30, '6 of 20 lines, not the mean of 100%, 0% and 50%');
    assert.equal(proxy?.files, 1);
    assert.equal(percent(count(0, 0)), 100, 'nothing to cover is fully covered');
  });

  it('leaves out a file with nothing covered only when it compiles to no JavaScript', () => {
    const asked: string[] = [];
    const summary: Summary = new Map([
      ['/project/judgments/types.ts', file(count(0, 40), count(0, 0), count(0, 0))],
      ['/project/judgments/cli.ts', file(count(0, 30), count(0, 1), count(0, 2))],
      ['/project/judgments/used.ts', file(count(8, 10))],
    ]);
    const [row] = folderCoverage(summary, ROOT, ['judgments'], (path) => {
      asked.push(path);
      return path.endsWith('types.ts');
    });
    assert.deepEqual(
      asked,
      ['/project/judgments/types.ts', '/project/judgments/cli.ts'],
      'only files with nothing covered are asked about',
    );
    assert.deepEqual(row?.typeOnly, ['judgments/types.ts']);
    assert.deepEqual(row?.counts.lines, count(8, 40), 'the file never run counts with all its lines');
  });

  it('compilesToNothing: types, interfaces and type-only imports and exports compile to nothing; any statement does not', async () => {
    assert.equal(
      compilesToNothing("import type { A } from './a.js';\n/** doc */\nexport interface B { a: A }\nexport type C = B[];\n"),
      true,
    );
    assert.equal(compilesToNothing("export type { A } from './a.js';\n"), true);
    assert.equal(compilesToNothing('export const x = 1;\n'), false);
    assert.equal(compilesToNothing("import './side-effect.js';\n"), false);
    assert.equal(compilesToNothing("export { a } from './a.js';\n"), false);
    assert.equal(compilesToNothing('export enum E { A }\n'), false);
    assert.equal(compilesToNothing(await readFile(join(PROJECT_ROOT, 'judgments', 'exchange.ts'), 'utf8')), true);
    assert.equal(compilesToNothing(await readFile(join(PROJECT_ROOT, 'judgments', 'create.ts'), 'utf8')), false);
  });

  it('judges each folder and metric against its threshold (equal passes); a folder below, or not measured, fails naming why', () => {
    const coverage = folderCoverage(
      new Map([
        ['/project/contract/a.ts', file(count(90, 100), count(79, 100), count(85, 100))],
        ['/project/mock/a.ts', file(count(90, 100))],
      ]),
      ROOT,
      ['contract', 'mock', 'judgments'],
      () => false,
    );
    const thresholds = parseThresholds(
      {
        contract: { lines: 90, branches: 80, functions: 85 },
        mock: { lines: 89, branches: 0, functions: 0 },
        judgments: { lines: 1, branches: 1, functions: 1 },
      },
      't.json',
    );
    const { rows, failures } = judge(coverage, thresholds);
    assert.deepEqual(
      rows.filter((row) => !row.ok).map((row) => `${row.folder} ${row.metric}`),
      ['contract branches'],
    );
    assert.deepEqual(failures, [
      'contract/: branches 79.00% is below its threshold 80% (79 of 100 covered): add tests, or lower the threshold with a reason',
      'judgments/: no file was measured (is it in .c8rc.json\'s "include", and did the tests run through c8?)',
    ]);
    const table = renderTable(coverage, rows).split('\n');
    assert.deepEqual(table, [
      'folder     files  lines             branches                functions',
      'contract/      1  90.00% (min 90%)  79.00% (min 80%) BELOW  85.00% (min 85%)',
      'mock/          1  90.00% (min 89%)  100.00% (min 0%)        100.00% (min 0%)',
    ]);
  });

  it('never shows a percentage rounded up to a threshold it misses', () => {
    const coverage = folderCoverage(new Map([['/project/mock/a.ts', file(count(8999, 10000))]]), ROOT, ['mock'], () => false);
    const { rows } = judge(coverage, parseThresholds({ mock: { lines: 90, branches: 0, functions: 0 } }, 't.json'));
    assert.match(renderTable(coverage, rows), /89\.99% \(min 90%\) BELOW/);
  });

  describe('files and the CLI', function () {
    this.timeout(60_000);
    let folder = '';
    beforeEach(async () => {
      folder = await mkdtemp(join(tmpdir(), 'coverage-check-'));
    });
    afterEach(() => rm(folder, { recursive: true, force: true }));

    async function write(summary: Record<string, unknown>, thresholds: unknown): Promise<{ summaryPath: string; thresholdsPath: string }> {
      const summaryPath = join(folder, 'coverage-summary.json');
      const thresholdsPath = join(folder, 'thresholds.json');
      await writeFile(summaryPath, JSON.stringify(summary));
      await writeFile(thresholdsPath, JSON.stringify(thresholds));
      return { summaryPath, thresholdsPath };
    }

    it('checkCoverage reads both files, reads the sources of files never run, and says what it left out', async () => {
      const typesFile = join(folder, 'mock', 'types.ts');
      const codeFile = join(folder, 'mock', 'never-run.ts');
      await mkdir(join(folder, 'mock'));
      await writeFile(typesFile, 'export interface A { a: number }\n');
      await writeFile(codeFile, 'export const a = 1;\n');
      const paths = await write(
        {
          total: entry(file(count(0, 0))),
          [typesFile]: entry(file(count(0, 1), count(0, 0), count(0, 0))),
          [codeFile]: entry(file(count(0, 1), count(0, 0), count(0, 0))),
          [join(folder, 'mock', 'run.ts')]: entry(file(count(3, 3))),
        },
        { mock: { lines: 75, branches: 100, functions: 100 } },
      );
      const { text, failures } = checkCoverage({ ...paths, root: folder });
      assert.deepEqual(failures, []);
      assert.match(
        text,
        /^coverage per folder \(the test processes' coverage of the TypeScript sources; thresholds in thresholds\.json\):\n/,
      );
      assert.match(text, /mock\/ +2 +75\.00% \(min 75%\)/);
      assert.match(text, /not counted, types only \(no JavaScript\): mock\/types\.ts$/);
      assert.throws(
        () => checkCoverage({ ...paths, summaryPath: join(folder, 'none.json'), root: folder }),
        /none\.json does not exist; run the tests through c8 first \(`npm run test:coverage`\)/,
      );
      await writeFile(paths.summaryPath, '{"total":');
      assert.throws(() => checkCoverage({ ...paths, root: folder }), /coverage-summary\.json is not JSON/);
    });

    it('the CLI exits 0 when every folder holds, 1 naming the folder below, 2 on bad input', async () => {
      const cli = (args: string[]) =>
        new Promise<{ code: number | null; stdout: string; stderr: string; output: string }>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'scripts', 'coverage-check.ts'), ...args], {
            cwd: PROJECT_ROOT,
          });
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
          child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
          child.on('error', reject);
          child.on('close', (code) => resolve({ code, stdout, stderr, output: `${stdout}${stderr}` }));
        });
      const source = join(PROJECT_ROOT, 'mock', 'app.ts');
      const paths = await write(
        { total: entry(file(count(0, 0))), [source]: entry(file(count(80, 100))) },
        { mock: { lines: 80, branches: 0, functions: 0 } },
      );
      const holds = await cli(['--summary', paths.summaryPath, '--thresholds', paths.thresholdsPath]);
      assert.equal(holds.code, 0, holds.output);
      assert.match(holds.stdout, /mock\/ +1 +80\.00% \(min 80%\)/);
      await writeFile(paths.thresholdsPath, JSON.stringify({ mock: { lines: 81, branches: 0, functions: 0 } }));
      const below = await cli(['--summary', paths.summaryPath, '--thresholds', paths.thresholdsPath]);
      assert.equal(below.code, 1, below.output);
      assert.match(below.stderr, /coverage below threshold: mock\/: lines 80\.00% is below its threshold 81%/);
      const badOption = await cli(['--threshold', 'x']);
      assert.equal(badOption.code, 2, badOption.output);
      assert.match(badOption.stderr, /unknown option --threshold; options: --summary FILE, --thresholds FILE/);
    });
  });

  it("the project's thresholds file is valid and gates the core folders", async () => {
    const thresholds = parseThresholds(
      JSON.parse(await readFile(join(PROJECT_ROOT, 'scripts', 'coverage-thresholds.json'), 'utf8')) as unknown,
      'scripts/coverage-thresholds.json',
    );
    assert.deepEqual([...thresholds.keys()].sort(), ['checks', 'conformance', 'contract', 'judgments', 'mock', 'util']);
  });

  it("docs/coverage.md's table of thresholds states the thresholds file's values, folder by folder", async () => {
    const thresholds = parseThresholds(
      JSON.parse(await readFile(join(PROJECT_ROOT, 'scripts', 'coverage-thresholds.json'), 'utf8')) as unknown,
      'scripts/coverage-thresholds.json',
    );
    const page = await readFile(join(PROJECT_ROOT, 'docs', 'coverage.md'), 'utf8');
    const stated = new Map(
      [...page.matchAll(/^\| `(\w+)\/` +\| (\d+)%\\?\*? +\| (\d+)%\\?\*? +\| (\d+)%\\?\*? +\|$/gm)].map((m) => [
        m[1],
        { lines: Number(m[2]), branches: Number(m[3]), functions: Number(m[4]) },
      ]),
    );
    assert.deepEqual(stated, thresholds);
  });
});
