/**
 * The mocha configuration of whole runs (`mocha --config scripts/mocharc.cjs`): `npm run test:unit`
 * runs every test file; `npm test` runs them in two runs at once, the coverage run (GOODS_TESTS=counted:
 * all but UNCOUNTED, under c8) and the rest beside it (GOODS_TESTS=uncounted); `npm run test:quick`
 * (GOODS_TESTS=quick) all but the slow ones (QUICK_LEAVES_OUT). With `--parallel` (on the command line, where
 * support/coverage-in-process.ts sees it) the files run in worker processes, one more than the cores
 * at a time (many files spend much of their time waiting on servers, time-outs and child processes,
 * so a worker more keeps both cores busy; GOODS_TEST_JOBS=N to choose), the slowest first, by the per-file times of the recorded
 * run (docs/generated/test-time.json), so no long file starts last and keeps the run waiting; a file
 * the record does not know yet runs after those it knows. `support/test-timing.ts` prints the slowest
 * files at the end. `npx mocha FILE...` keeps .mocharc.json (one process; of the plugins only the temporary folder).
 * CommonJS, because mocha reads its configuration with require().
 */
'use strict';
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join, relative, sep } = require('node:path');

const ROOT = join(__dirname, '..');
/** The folders holding tests: every folder of the project with TypeScript, as tsconfig.json includes them (the one list). */
const FOLDERS = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')).include;
/** The recorded run (scripts/test-time.ts writes it). */
const RECORD = join(ROOT, 'docs', 'generated', 'test-time.json');

/**
 * What `npm run test:quick` leaves out: the files that start whole processes, browsers, Redis or
 * package installs, make many whole conformance runs (each over 3 s of CPU in the recorded run), or
 * wait out what a server makes the suite wait for (Retry-After, time-outs, idle connections closed).
 */
const QUICK_LEAVES_OUT = [
  'bench/',
  'test/browser/',
  'test/hardening/',
  'test/package/',
  'test/proxy/',
  'test/readme-commands.test.ts',
  'test/workflow-lint.test.ts',
  'scripts/lint-and-types.test.ts',
  'conformance/faults.test.ts',
  'conformance/concurrency.test.ts',
  'conformance/evolved.test.ts',
  'conformance/self-test/',
  'conformance/compat/',
  'conformance/cli.test.ts',
  'conformance/mock.test.ts',
  'conformance/robustness.test.ts',
  'conformance/prism.test.ts',
  'conformance/contract-option.test.ts',
  'conformance/checks/',
  'conformance/spec-vs-profile.test.ts',
  'conformance/configuration.test.ts',
  'conformance/coverage.test.ts',
  'conformance/time.test.ts',
  'conformance/verdict.test.ts',
  'conformance/ca-option.test.ts',
  'conformance/rate-limit.test.ts',
  'conformance/connections.test.ts',
  'conformance/reproduce.test.ts',
  'conformance/secrets.test.ts',
  'mock/documented-answers.test.ts',
  'mock/crosscheck.test.ts',
  'mock/cli.test.ts',
  'mock/proxy/cli.test.ts',
  'mock/team.test.ts',
  'mock/journal.test.ts',
  'mock/store/',
  'contract/prism.test.ts',
  'scripts/coverage-thresholds.test.ts',
  'scripts/prerequisites.test.ts',
  'support/coverage-in-process.test.ts',
];

/** Every `*.test.ts` of the test folders, as project-relative `/` paths, in name order. */
function testFiles() {
  const files = [];
  for (const folder of FOLDERS) {
    for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.test.ts')) continue;
      const path = relative(ROOT, join(entry.parentPath, entry.name)).split(sep).join('/');
      if (!path.split('/').includes('node_modules')) files.push(path);
    }
  }
  return files.sort();
}

/** The recorded wall time of each file (an empty map when there is no record). */
function recordedSeconds() {
  if (!existsSync(RECORD)) return new Map();
  const record = JSON.parse(readFileSync(RECORD, 'utf8'));
  return new Map((record.files ?? []).map((entry) => [entry.file, entry.seconds]));
}

/** Slowest recorded first; files without a record after them, in name order. */
function slowestFirst(files, seconds) {
  const known = files.filter((file) => seconds.has(file)).sort((a, b) => seconds.get(b) - seconds.get(a));
  return [...known, ...files.filter((file) => !seconds.has(file))];
}

/**
 * The files `npm test` runs beside the coverage run, not under it: the fault table, whose 135 whole
 * conformance runs pay V8's coverage counters (a quarter of their CPU) for paths the other files cover
 * already. Measured: without it the coverage of every core folder holds its threshold, and it adds one
 * line, one function and 17 of 4,433 branches of conformance/ (docs/coverage.md). The other whole-run
 * files (proofs, evolved contracts, concurrency, the self-tests) cover code nothing else does, so they
 * stay counted.
 */
const UNCOUNTED = ['conformance/faults.test.ts'];

const mode = process.env.GOODS_TESTS ?? 'all';
const MODES = ['all', 'quick', 'counted', 'uncounted'];
if (!MODES.includes(mode)) throw new Error(`GOODS_TESTS=${mode}: one of ${MODES.join(', ')}`);
const listed = (list, file) => list.some((entry) => file === entry || file.startsWith(entry));
const files = testFiles().filter((file) =>
  mode === 'quick'
    ? !listed(QUICK_LEAVES_OUT, file)
    : mode === 'counted'
      ? !listed(UNCOUNTED, file)
      : mode === 'uncounted'
        ? listed(UNCOUNTED, file)
        : true,
);
const { availableParallelism } = require('node:os');
// The files beside the coverage run: two workers, so they run in worker processes as every other file does.
const defaultJobs = mode === 'uncounted' ? 2 : availableParallelism() + 1;
const jobs = Number(process.env.GOODS_TEST_JOBS ?? String(defaultJobs));

module.exports = {
  spec: slowestFirst(files, recordedSeconds()),
  // One copy of each module: see docs/coverage.md, "One copy of each module".
  'node-option': ['import=tsx', 'no-experimental-require-module'],
  // The files' times; one temporary folder for the whole run, removed at its end (support/test-tmpdir.ts).
  require: ['./support/test-timing.ts', './support/test-tmpdir.ts'],
  timeout: 30000,
  reporter: 'spec',
  jobs: Number.isInteger(jobs) && jobs > 0 ? jobs : defaultJobs,
};
