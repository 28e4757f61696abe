/**
 * conformance/run.ts (`runConformance`) with small checks of its own (`options.checks`) against a
 * small server on loopback: how the results model is built from the checks' results (counts, the
 * outcome and its exit code, rules left out and unchecked grouped by rule, operations tested, the
 * requests sent, records created), what is redacted, the report files, the in-process mock started
 * and closed, the contract named, and a target where nothing listens. The full checks against real
 * targets are in verdict.test.ts, configuration.test.ts, mock.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readContract } from '../contract/document.js';
import { operationsModel, resourceOf, withOrder } from '../contract/operations-model.js';
import { closedPort, listen, type Loopback } from '../support/loopback.js';
import type { Check } from './checks/types.js';
import { resolveConformanceConfig, type ConformanceConfigInput } from './config.js';
import { CheckFailure, CheckNotRun } from './failure.js';
import { runConformance } from './run.js';
import { StartError } from './start-error.js';

const document = readContract();
const model = withOrder(operationsModel(document));
const order = model.orderInfo.operationId;
const [transfers] = model.createIds;
if (transfers === undefined) throw new Error('the contract has no create operation');
const TOKEN = 'run-test-token-1234';

function check(
  id: string,
  rule: string,
  run: Check['run'],
  options: { operation?: Check['operations'][number]; write?: boolean } = {},
): Check {
  return {
    id,
    level: 'spec',
    operations: [options.operation ?? order],
    title: id,
    rule,
    ...(options.write !== undefined ? { write: options.write } : {}),
    cases: ['one'],
    run,
  };
}

/** Reads the main order (the run's first request) and passes. */
const readsOrder = check('order.reads', 'rule A', async (ctx, t) => {
  await t.judge(
    'one',
    () => ctx.orderExchange(),
    () => [],
  );
});

describe('conformance/run: runConformance', function () {
  this.timeout(30_000);
  let server: Loopback;
  let baseUrl = '';
  let posts = 0;
  let output = '';
  /** The X-Mock-Session of each request, and whether the server answers it back (as goods-mock does). */
  const sessions: (string | undefined)[] = [];
  let echoSession = false;

  before(async () => {
    server = await listen((req, res) => {
      req.resume();
      const session = req.headers['x-mock-session'];
      sessions.push(typeof session === 'string' ? session : undefined);
      if (echoSession && typeof session === 'string') res.setHeader('X-Mock-Session', session);
      req.on('end', () => {
        if (req.method === 'POST') {
          posts++;
          res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":1}');
          return;
        }
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ order: {}, containers: [], charges: [], lots: [] }));
      });
    });
    baseUrl = server.url;
  });
  after(() => server.close());
  beforeEach(() => {
    posts = 0;
    output = '';
    sessions.length = 0;
    echoSession = false;
  });

  const config = (input: ConformanceConfigInput = {}) =>
    resolveConformanceConfig({ baseUrl, token: TOKEN, orderNumber: 'ORD-1', reporters: ['console'], concurrency: 1, seed: 1, ...input });
  const write = (text: string): void => {
    output += text;
  };

  it('builds the verdict from the results: counts, a failure wins (exit 1), rules left out and unchecked grouped by rule', async () => {
    const checks: Check[] = [
      readsOrder,
      check('order.fails', 'rule B', (_ctx, t) =>
        t.run('one', () => {
          throw new CheckFailure({ rule: 'rule B', expected: 'e', actual: 'wrong' });
        }),
      ),
      check(
        'transfer.writes',
        'rule C',
        async (ctx, t) => {
          await t.run('one', async () => {
            await ctx.sendToCreate(transfers, {});
          });
        },
        { operation: transfers, write: true },
      ),
      check('transfer.blocked-1', 'rule D', () => Promise.reject(new CheckNotRun('blocked', 'no-lots', 'GET order ORD-1')), {
        operation: transfers,
      }),
      check('transfer.blocked-2', 'rule D', () => Promise.reject(new CheckNotRun('blocked', 'no-lots', 'GET order ORD-1')), {
        operation: transfers,
      }),
    ];
    const { exitCode, verdict, requests } = await runConformance(config(), { checks, write });
    assert.equal(exitCode, 1);
    assert.equal(verdict.outcome, 'failed');
    assert.equal(verdict.passed, false);
    assert.deepEqual(verdict.counts, { total: 5, passed: 2, failed: 1, skipped: 0, notRun: 2, cases: 3 });
    assert.deepEqual(verdict.unchecked, [
      { rule: 'rule D', level: 'spec', checks: ['transfer.blocked-1', 'transfer.blocked-2'], reason: 'no-lots' },
    ]);
    assert.deepEqual(verdict.leftOut, []);
    assert.deepEqual(verdict.operationsTested.sort(), [order, transfers].sort());
    assert.equal(verdict.recordsCreated, 1, 'the 2xx to the POST');
    assert.equal(verdict.writes, 0, 'a POST that is not createRecord is no write');
    assert.equal(verdict.requests, 2);
    assert.deepEqual(
      requests.map((r) => r.method),
      ['GET', 'POST'],
    );
    assert.equal(posts, 1);
    assert.match(output, /exit code 1/);
  });

  it('names its own mock session (X-Mock-Session: conformance) in every request; a server that answers it back gets the session, its listings and reset in the summary', async () => {
    const writes = check(
      'transfer.writes',
      'rule W',
      (ctx, t) => t.run('one', () => ctx.sendToCreate(transfers, {}).then(() => undefined)),
      {
        operation: transfers,
        write: true,
      },
    );
    const other = await runConformance(config(), { checks: [readsOrder, writes], write });
    assert.deepEqual(sessions, ['conformance', 'conformance'], 'every request names the session');
    assert.equal(other.verdict.mockSession, undefined, 'a server that ignores the header: nothing said');
    assert.doesNotMatch(output, /mock session/);

    echoSession = true;
    const mock = await runConformance(config({ baseUrl: baseUrl.replace('http://', 'http://user:pw@') }), {
      checks: [readsOrder, writes],
      write,
    });
    const control = `${baseUrl}/__mock`;
    assert.deepEqual(mock.verdict.mockSession, {
      name: 'conformance',
      listings: model.creates.map((op) => `${control}/${resourceOf(op)}`),
      reset: `${control}/reset`,
    });
    assert.ok(output.includes(`mock session conformance: the records this run created are there, not in the default session`), output);
    assert.ok(
      output.includes(`  curl -H 'X-Mock-Session: conformance' ${control}/${resourceOf(model.creates[0] ?? model.orderInfo)}\n`),
      output,
    );
    assert.ok(output.includes(`  curl -X POST -H 'X-Mock-Session: conformance' -H 'X-Mock-Reset: 1' ${control}/reset`), output);
    assert.ok(!output.includes('user:pw'));

    const inProcess = await runConformance(resolveConformanceConfig({ concurrency: 1, seed: 1 }), { checks: [readsOrder], write });
    assert.equal(inProcess.verdict.mockSession, undefined, 'the in-process mock is gone after the run: nothing to list');
  });

  it('--read-only: the write checks are left out (exit 0 when every other check passed); a not-run check makes it incomplete (exit 3)', async () => {
    const writes = check('transfer.writes', 'rule W', () => Promise.resolve(), { operation: transfers, write: true });
    const passed = await runConformance(config({ readOnly: true }), { checks: [readsOrder, writes], write });
    assert.deepEqual([passed.exitCode, passed.verdict.outcome], [0, 'passed']);
    assert.deepEqual(passed.verdict.leftOut, [{ rule: 'rule W', level: 'spec', checks: ['transfer.writes'], reason: 'read-only' }]);
    assert.deepEqual(passed.verdict.operationsTested, [order]);
    const blocked = check('order.blocked', 'rule X', () =>
      Promise.reject(new CheckNotRun('later', 'deadline', 'the deadline (--deadline)')),
    );
    const incomplete = await runConformance(config(), { checks: [readsOrder, blocked], write });
    assert.deepEqual([incomplete.exitCode, incomplete.verdict.outcome], [3, 'incomplete']);
  });

  it('redacts the token in everything it writes, also when a check shows it, and names the target without its userinfo', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'run-test-'));
    try {
      const leaks = check('order.leaks', 'rule L', (_ctx, t) =>
        t.run('one', () => {
          throw new CheckFailure({
            rule: 'rule L',
            expected: 'no echo',
            actual: `the server echoed Bearer ${TOKEN} and ${TOKEN.toUpperCase()}`,
          });
        }),
      );
      const withUser = baseUrl.replace('http://', 'http://someone:pa55word@');
      const { verdict, files } = await runConformance(
        config({ baseUrl: withUser, reporters: ['console', 'json', 'junit'], outputDir: folder }),
        {
          checks: [readsOrder, leaks],
          write,
        },
      );
      assert.deepEqual(files.map((file) => file.replace(`${folder}/`, '')).sort(), ['conformance.json', 'junit.xml']);
      assert.equal(verdict.target, baseUrl);
      const json = await readFile(join(folder, 'conformance.json'), 'utf8');
      const junit = await readFile(join(folder, 'junit.xml'), 'utf8');
      assert.match(output, /the server echoed Bearer /, 'the failure is shown');
      for (const [name, text] of [
        ['console', output],
        ['conformance.json', json],
        ['junit.xml', junit],
      ] as const) {
        assert.ok(!text.includes(TOKEN), `${name} shows the token`);
        assert.ok(!text.includes(TOKEN.toUpperCase()), `${name} shows the token in upper case`);
        assert.ok(!text.includes('pa55word'), `${name} shows the password of the URL`);
      }
      assert.equal((JSON.parse(json) as { outcome: string }).outcome, 'failed');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("JUnit: a suite's time is the wall time of its checks, run at once (within the run's time, below their summed durations)", async () => {
    const folder = await mkdtemp(join(tmpdir(), 'run-test-'));
    try {
      // Three checks of one operation that each wait 200 ms: started together (--concurrency 8), so they overlap.
      const waits = ['a', 'b', 'c'].map((name) =>
        check(`order.waits-${name}`, 'rule W', (_ctx, t) => t.run('one', () => new Promise<void>((done) => setTimeout(done, 200)))),
      );
      const { verdict } = await runConformance(config({ reporters: ['console', 'junit'], outputDir: folder, concurrency: 8 }), {
        checks: waits,
        write,
      });
      const junit = await readFile(join(folder, 'junit.xml'), 'utf8');
      const suiteTime = Number(/<testsuite [^>]*name="[^"]+"[^>]* time="([\d.]+)"/.exec(junit)?.[1]);
      const starts = verdict.checks.map((c) => c.startedMs ?? -1);
      assert.ok(
        starts.every((start) => start >= 0),
        'every check has its start',
      );
      const ends = verdict.checks.map((c) => (c.startedMs ?? 0) + c.durationMs);
      assert.equal(suiteTime, (Math.max(...ends) - Math.min(...starts)) / 1000);
      assert.ok(suiteTime <= verdict.durationMs / 1000, `the suite's ${suiteTime} s is within the run's ${verdict.durationMs} ms`);
      const summed = verdict.checks.reduce((sum, c) => sum + c.durationMs, 0);
      assert.ok(suiteTime < summed / 1000, `the suite's ${suiteTime} s is below the checks' summed ${summed} ms`);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('without --base-url, starts the mock in-process, runs against it and closes it', async () => {
    const run = await runConformance(resolveConformanceConfig({ concurrency: 1, seed: 1 }), { checks: [readsOrder], write });
    assert.equal(run.exitCode, 0);
    const target = new URL(run.verdict.target);
    assert.equal(target.hostname, '127.0.0.1');
    assert.match(output, /in-process/);
    const refused = await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: Number(target.port) });
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    assert.equal(refused, 'ECONNREFUSED', 'the in-process mock is closed after the run');
  });

  it("names the contract judged: the bundled file, or '(in memory)' with the hash of the document passed", async () => {
    const bundled = await runConformance(config(), { checks: [readsOrder], write });
    assert.match(bundled.verdict.contract.path, /openapi\.(yaml|json)$/);
    const copy = structuredClone(document);
    const inMemory = await runConformance(config(), { checks: [readsOrder], write, document: copy });
    assert.equal(inMemory.verdict.contract.path, '(in memory)');
    assert.notEqual(inMemory.verdict.contract.sha256, bundled.verdict.contract.sha256);
  });

  it('stops with a StartError naming the URL (without userinfo) when nothing listens there; sends nothing', async () => {
    const port = await closedPort();
    let ran = false;
    const never = check('order.never', 'rule N', () => {
      ran = true;
      return Promise.resolve();
    });
    await assert.rejects(
      runConformance(config({ baseUrl: `http://user:secret@127.0.0.1:${port}/api` }), { checks: [never], write }),
      (error: unknown) => {
        assert.ok(error instanceof StartError, String(error));
        assert.equal(error.reason, `nothing is listening at http://127.0.0.1:${port}/api (ECONNREFUSED)`);
        assert.equal(error.fix, 'start the server, or fix --base-url');
        return true;
      },
    );
    assert.equal(ran, false);
    assert.equal(output, '', 'nothing written before the run could start');
  });
});
