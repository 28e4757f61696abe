/**
 * Issue 6, the suite against broken servers: the conformance CLI, in a child process, pointed at a
 * server that answers garbage, hangs, resets connections, streams 100 MiB bodies or answers with the
 * wrong content types, reports failures and exits 1 by itself, with no unhandled exception, and
 * stops reading a huge body early.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../contract/paths.js';
import { runToExit, type Finished } from '../../support/processes.js';
import { BROKEN_KINDS, BROKEN_ORDER, startBrokenServer, type BrokenScope, type BrokenServer } from './support/broken-servers.js';

const CONFORMANCE_CLI = join(PROJECT_ROOT, 'conformance', 'cli.ts');
/** A generous bound: the run must end by itself well before this (it is a hang detector, not a speed test). */
const LIMIT_MS = 60_000;

function runConformanceCli(args: string[]): Promise<Finished> {
  return runToExit(
    'goods-conformance',
    { command: process.execPath, args: ['--import', 'tsx', CONFORMANCE_CLI, ...args] },
    { env: { ...process.env, CONFORMANCE_TOKEN: '' }, timeoutMs: LIMIT_MS },
  );
}

describe('hardening: the conformance CLI against broken servers', function () {
  this.timeout(LIMIT_MS + 15_000);

  for (const [kind, scope] of BROKEN_KINDS.flatMap((k) =>
    (['all', 'creates'] as BrokenScope[]).map((s): [typeof k, BrokenScope] => [k, s]),
  )) {
    it(`${kind} (${scope === 'all' ? 'every answer' : 'creates and errors; the order is right'}): reports failures and exits 1 by itself, without an unhandled exception`, async () => {
      let server: BrokenServer | undefined;
      try {
        server = await startBrokenServer(kind, scope);
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
        assert.equal(run.timedOut, false, `the run had not ended after ${LIMIT_MS} ms`);
        assert.equal(run.code, 1, `exit code 1 (stderr: ${run.stderr.slice(0, 500)})`);
        assert.ok(server.requests > 0, 'the suite talked to the server');
        assert.match(run.stdout, /^\s*FAIL\s/m, 'a failed check is listed');
        assert.match(run.stdout, /FAILED: \d+ passed, [1-9]\d* failed/, 'a summary of the failures');
        assert.doesNotMatch(`${run.stdout}\n${run.stderr}`, /unhandled|uncaught|internal error|could not complete/i);
        if (kind === 'huge') {
          // The suite stopped reading long before 100 MiB (what got out is its cap plus socket buffers).
          assert.ok(server.maxBytesWritten < 32 * 1024 * 1024, `${server.maxBytesWritten} bytes of a 100 MiB body were sent`);
          assert.match(run.stdout, /larger than 1 MiB/);
        }
        if (kind === 'hang') assert.match(run.stdout, /timed out/);
        if (scope === 'creates') assert.match(run.stdout, /FAIL .*create(LotTransfer|TestSample)\./, 'the create checks ran and failed');
      } finally {
        await server?.close();
      }
    });
  }
});
