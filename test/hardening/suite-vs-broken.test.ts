/**
 * The suite against broken servers: the conformance CLI, in a child process, pointed at a
 * server that answers garbage, hangs, resets connections, streams 100 MiB bodies or answers with the
 * wrong content types, reports failures and exits 1 by itself, with no unhandled exception, and
 * stops reading a huge body early. One of them is a configuration error: garbage on every
 * answer starts with `<html>`, so the main order is answered with an HTML page, not the API; the run
 * still reports its failures, then exits 2 with one line naming --base-url.
 */
import assert from 'node:assert/strict';
import { runToExit, type Finished } from '../../support/processes.js';
import { projectCli } from '../../support/project-cli.js';
import { BROKEN_KINDS, BROKEN_ORDER, startBrokenServer, type BrokenKind, type BrokenScope } from './support/broken-servers.js';

/** A generous bound: the run must end by itself well before this (it is a hang detector, not a speed test). */
const LIMIT_MS = 60_000;

function runConformanceCli(args: string[]): Promise<Finished> {
  return runToExit('goods-conformance', projectCli('conformance/cli', args), {
    env: { ...process.env, CONFORMANCE_TOKEN: '' },
    timeoutMs: LIMIT_MS,
  });
}

/** One CLI run against a fresh broken server, with what the server counted (read after the run, before closing it). */
interface BrokenRun {
  run: Finished;
  requests: number;
  maxBytesWritten: number;
}

async function runAgainst(kind: BrokenKind, scope: BrokenScope): Promise<BrokenRun> {
  const server = await startBrokenServer(kind, scope);
  try {
    const run = await runConformanceCli([
      '--base-url',
      server.url,
      '--token',
      'hardening-conformance-token',
      '--order-number',
      BROKEN_ORDER,
      '--level',
      'strict',
      '--timeout',
      '500',
    ]);
    return { run, requests: server.requests, maxBytesWritten: server.maxBytesWritten };
  } finally {
    await server.close();
  }
}

const CASES = BROKEN_KINDS.flatMap((k) => (['all', 'creates'] as BrokenScope[]).map((s): [BrokenKind, BrokenScope] => [k, s]));

/**
 * The runs, two at a time (each server and CLI process is its own; most of a run is the CLI starting, or
 * waiting out a 500 ms time-out): started by the first case, each case awaits its own run.
 */
function startRuns(): Promise<BrokenRun>[] {
  const lanes: Promise<unknown>[] = [Promise.resolve(), Promise.resolve()];
  return CASES.map(([kind, scope], index) => {
    const lane = index % lanes.length;
    const run = (lanes[lane] ?? Promise.resolve()).then(() => runAgainst(kind, scope));
    lanes[lane] = run.catch(() => undefined); // a failed run does not stop its lane; its case reports it
    return run;
  });
}

describe('hardening: the conformance CLI against broken servers', function () {
  this.timeout(LIMIT_MS + 15_000);
  let runs: Promise<BrokenRun>[] = [];
  before(() => {
    runs = startRuns();
  });
  after(async function () {
    this.timeout(2 * LIMIT_MS);
    await Promise.allSettled(runs);
  });

  CASES.forEach(([kind, scope], index) => {
    // An HTML page for the main order: a configuration error (--base-url), exit 2 after the summary.
    const configuration = kind === 'garbage' && scope === 'all';
    it(`${kind} (${scope === 'all' ? 'every answer' : 'creates and errors; the order is right'}): reports failures and exits ${configuration ? '2 (an HTML page, not the API: --base-url)' : '1'} by itself, without an unhandled exception`, async () => {
      const started = runs[index];
      assert.ok(started, `the run of case ${index} was started`);
      const { run, requests, maxBytesWritten } = await started;
      assert.equal(run.timedOut, false, `the run had not ended after ${LIMIT_MS} ms`);
      assert.equal(run.code, configuration ? 2 : 1, `exit code (stderr: ${run.stderr.slice(0, 500)})`);
      assert.ok(requests > 0, 'the suite talked to the server');
      assert.match(run.stdout, /^\s*FAIL\s/m, 'a failed check is listed');
      if (configuration) {
        assert.match(run.stdout, /CONFIGURATION ERROR: \d+ passed, [1-9]\d* failed/, 'a summary of the failures');
        assert.match(
          run.stderr,
          /^goods-conformance: the main order "ORD-2026-0001" was answered 200 with an HTML page, and no answer of the run was JSON: [^\n]*; point --base-url at the API itself[^\n]*\n$/,
        );
      } else {
        assert.match(run.stdout, /FAILED: \d+ passed, [1-9]\d* failed/, 'a summary of the failures');
        assert.equal(run.stderr.replace(/^npm warn .*\n/gm, ''), '', 'nothing on stderr');
      }
      assert.doesNotMatch(`${run.stdout}\n${run.stderr}`, /unhandled|uncaught|internal error|could not complete/i);
      if (kind === 'huge') {
        // The suite stopped reading long before 100 MiB (what got out is its cap plus socket buffers).
        assert.ok(maxBytesWritten < 32 * 1024 * 1024, `${maxBytesWritten} bytes of a 100 MiB body were sent`);
        assert.match(run.stdout, /larger than 1 MiB/);
      }
      if (kind === 'hang') assert.match(run.stdout, /timed out/);
      if (scope === 'creates') assert.match(run.stdout, /FAIL .*create(LotTransfer|TestSample)\./, 'the create checks ran and failed');
    });
  });
});
