/**
 * The suite bounds what it parses: against a server that answers every request with JSON nested
 * 900,000 levels deep (`[` 900,000 times: 900 KB, under the 1 MiB answer cap), the conformance CLI
 * stops reading each answer at the 129th level, fails the checks with "the answer nests deeper than 128
 * levels", exits 1 (the server's fault) and stays small. Before: 534 MiB in the run (452-734 MiB
 * here with 540,000 levels), because its HTTP client parsed every answer in full.
 */
import assert from 'node:assert/strict';
import { listen, type Loopback } from '../../support/loopback.js';
import { treeMemory } from '../../support/proc-memory.js';
import { startChild } from '../../support/processes.js';
import { projectCli } from '../../support/project-cli.js';

const LEVELS = 900_000;
/** Far above the suite's own footprint (about 100 MiB), far below the 452+ MiB it took before. */
const CEILING = 256 * 1024 * 1024;

describe('hardening: the suite against an answer nested 900,000 levels deep', function () {
  this.timeout(120_000);
  let server: Loopback;
  before(async () => {
    const body = Buffer.from('['.repeat(LEVELS));
    server = await listen((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
        res.end(body);
      });
    });
  });
  after(() => server.close());

  it(`fails with "the answer nests deeper than 128 levels", exits 1, and its peak memory stays under ${CEILING / 1024 / 1024} MiB`, async () => {
    const child = startChild(
      'goods-conformance',
      projectCli('conformance/cli', ['--base-url', server.url, '--token', 'deep-token', '--order-number', 'ORD-1', '--timeout', '5000']),
      { env: { ...process.env, CONFORMANCE_TOKEN: '' } },
    );
    let peak = 0;
    const poll = setInterval(() => (peak = Math.max(peak, treeMemory(child.pid).peakRss)), 25);
    try {
      const exit = await child.closed;
      assert.equal(exit.code, 1, child.output());
    } finally {
      clearInterval(poll);
      await child.stop();
    }
    assert.match(child.stdout(), /the answer nests deeper than 128 levels \(reading stopped: the suite parses at most 128\)/);
    assert.doesNotMatch(child.output(), /report this|Maximum call stack|heap out of memory/);
    assert.ok(peak > 0, 'the peak was read from /proc');
    assert.ok(peak < CEILING, `peak resident memory ${Math.round(peak / 1024 / 1024)} MiB`);
  });
});
