import assert from 'node:assert/strict';
import { listen, type Loopback } from './loopback.js';
import { startChild, stopAll } from './processes.js';
import { until, waitForHttp } from './wait.js';

/** A loopback server that answers 503 to its first `failures` requests, then 201 with the request's method. */
async function flakyServer(failures: number): Promise<Loopback & { seen: () => number }> {
  let seen = 0;
  const server = await listen((req, res) => {
    seen += 1;
    res.writeHead(seen <= failures ? 503 : 201).end(req.method);
  });
  return { ...server, url: `${server.url}/x`, seen: () => seen };
}

describe('support/wait: polling', () => {
  afterEach(async () => {
    await stopAll();
  });

  it('until: a check that throws counts as false; the time-out names what was awaited', async () => {
    let calls = 0;
    await until(() => {
      calls += 1;
      if (calls < 3) throw new Error('not yet');
      return true;
    });
    assert.equal(calls, 3);
    await assert.rejects(
      until(() => false, { what: 'the moon', timeoutMs: 50 }),
      /the moon: not within 50 ms/,
    );
  });

  it('waitForHttp: polls with the given request until the expected status', async () => {
    const { close, url, seen } = await flakyServer(3);
    try {
      await waitForHttp(url, { request: { method: 'POST', headers: {}, body: '{}' }, expectStatus: 201, intervalMs: 5 });
      assert.equal(seen(), 4);
    } finally {
      await close();
    }
  });

  it('waitForHttp: on time-out, says the last attempt', async () => {
    const { close, url } = await flakyServer(Number.MAX_SAFE_INTEGER);
    try {
      await assert.rejects(
        waitForHttp(url, { expectStatus: 200, timeoutMs: 100, intervalMs: 5 }),
        /did not answer 200 .*last attempt: status 503/,
      );
    } finally {
      await close();
    }
  });

  it('waitForHttp: fails at once, with its output, when the process that should answer exits', async () => {
    const child = startChild('quitter', { command: process.execPath, args: ['-e', 'console.error("bye"); process.exit(1)'] });
    await child.closed;
    await assert.rejects(waitForHttp('http://127.0.0.1:9/', { child, timeoutMs: 10_000 }), /quitter exited before answering.*bye/s);
  });
});
