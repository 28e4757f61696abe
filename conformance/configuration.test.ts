/**
 * Configuration errors are exit 2 (outcome `configuration`), with one line naming the option to fix:
 * the main order not found, the token refused on it, nothing but 401s, an HTML page (a login page, a
 * proxy) instead of the API. The summary still lists what was checked and the reports are written.
 * A server that is merely broken stays a failure (exit 1).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import https from 'node:https';
import { listen, listenOn, type Loopback } from '../support/loopback.js';
import { resolveConformanceConfig, type ConformanceConfigInput } from './config.js';
import { configurationHints, configurationProblem, decodingExplanation, looksLikeHtml } from './configuration.js';
import type { Exchange } from './http.js';
import { reportProblems } from '../report/schema.js';
import { runConformance, type RunResult } from './run.js';
import { StartError } from './start-error.js';
import { REFERENCE_TOKEN, startReferenceServer } from './self-test/reference-server.js';

const ORDER = 'ORD-2026-0001';
const TESTING = join(import.meta.dirname, 'testing');

function exchange(status: number, text: string, headers: Record<string, string> = { 'content-type': 'application/json' }): Exchange {
  return {
    request: { operation: 'getOrderInfo', method: 'GET', path: `/orders/${ORDER}`, headers: {} },
    answer: { status, headers, text, bytes: text.length },
    timedOut: false,
  };
}

/** A server answering every request with `status`, `type` and `body`. */
function answering(status: number, type: string | undefined, body: string): Promise<Loopback> {
  return listen((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status, type === undefined ? {} : { 'content-type': type }).end(body));
  });
}

/** A spec-level run against `url` with the JSON report written; the summary printed. */
async function run(url: string, token = 'some-token', orderNumber = ORDER): Promise<RunResult & { text: string; report: unknown }> {
  const output = mkdtempSync(join(tmpdir(), 'conformance-configuration-'));
  try {
    let text = '';
    const result = await runConformance(
      resolveConformanceConfig({ baseUrl: url, token, orderNumber, level: 'spec', reporters: ['json'], outputDir: output }),
      { write: (t) => void (text += t) },
    );
    const report = JSON.parse(readFileSync(join(output, 'conformance.json'), 'utf8')) as unknown;
    return { ...result, text, report };
  } finally {
    rmSync(output, { recursive: true, force: true });
  }
}

/** Exit 2, the summary with every check and the line, the report valid and naming the problem. */
function assertConfiguration(result: Awaited<ReturnType<typeof run>>, option: string, line: RegExp): void {
  assert.equal(result.exitCode, 2, result.text);
  assert.equal(result.verdict.outcome, 'configuration');
  assert.equal(result.verdict.passed, false);
  assert.equal(result.verdict.configuration?.option, option);
  assert.match(`${result.verdict.configuration?.reason ?? ''}; ${result.verdict.configuration?.fix ?? ''}`, line);
  assert.match(result.text, /\nCONFIGURATION ERROR: \d+ passed, \d+ failed, \d+ skipped, \d+ not run of \d+ checks/);
  assert.ok(result.text.includes(`\nconfiguration error: ${result.verdict.configuration?.reason ?? ''}; `), result.text);
  assert.match(result.text, /\nexit code 2\n/);
  assert.ok(result.verdict.counts.total > 0);
  assert.deepEqual(reportProblems(result.report), []);
  assert.deepEqual((result.report as { configuration?: unknown }).configuration, result.verdict.configuration);
}

describe('configuration errors: exit 2, one line naming the option to fix', function () {
  describe('what the contract asks of the configuration, refused before anything is sent', () => {
    let server: Loopback;
    let requests = 0;
    before(async () => {
      server = await listen((req, res) => {
        requests += 1;
        res.writeHead(500).end();
      });
    });
    after(() => server.close());

    for (const [what, given, reason, fix] of [
      [
        'no order number for a contract that reads an order',
        { orderNumber: '' },
        /^no order number for the server under test$/,
        /--order-number NUMBER/,
      ],
      [
        'no credential the bearer scheme can carry (a token with a space)',
        { token: 'not a token' },
        /^no credential the suite can send for getOrderInfo, which needs bearerAuth/,
        /--credential NAME=VALUE/,
      ],
    ] as [string, ConformanceConfigInput, RegExp, RegExp][]) {
      it(`${what}: a StartError (exit 2) naming the option`, async () => {
        await assert.rejects(
          runConformance(
            resolveConformanceConfig({ baseUrl: server.url, token: 'some-token', reporters: [], orderNumber: ORDER, ...given }),
          ),
          (error: unknown) => error instanceof StartError && reason.test(error.reason) && fix.test(error.fix),
        );
        assert.equal(requests, 0, 'nothing was sent');
      });
    }
  });

  this.timeout(20_000);

  it('what the answers show, in order: an HTML page, nothing but 401s, the token refused, nothing but 404s, the main order not found', () => {
    const config = { orderNumber: ORDER, token: 'some-token' };
    const problem = (main: Exchange, ...rest: Exchange[]): string | undefined =>
      configurationProblem(main, [main, ...rest], config)?.option;
    const html = exchange(200, '<!DOCTYPE html><html><head><title>Sign in</title></head><body><form></form></body></html>', {
      'content-type': 'text/html; charset=utf-8',
    });
    assert.equal(problem(html), '--base-url');
    assert.match(configurationProblem(html, [html], config)?.reason ?? '', /HTML page \(title "Sign in"\)/);
    assert.equal(problem(exchange(401, '<html><body>log in</body></html>', {})), '--base-url', 'an HTML page, whatever its status');
    assert.equal(problem(exchange(401, '{}'), exchange(401, '{}')), '--token');
    assert.match(
      configurationProblem(exchange(401, '{}'), [exchange(401, '{}'), exchange(401, '{}')], config)?.reason ?? '',
      /every request/,
    );
    assert.equal(problem(exchange(403, '{}'), exchange(200, '{}')), '--token');
    assert.equal(problem(exchange(404, '{}'), exchange(404, '{}')), '--base-url');
    assert.equal(problem(exchange(404, '{}'), exchange(401, '{}')), '--order-number');
    // Not a configuration error: a 2xx (whatever its body), a 5xx, a body that is not JSON but no HTML page, no answer.
    assert.equal(problem(exchange(200, '{}'), exchange(401, '{}')), undefined);
    assert.equal(problem(exchange(500, '{}')), undefined);
    assert.equal(
      problem(exchange(500, '<!DOCTYPE html><title>Traceback</title>', { 'content-type': 'text/html' })),
      undefined,
      "a server's own error page",
    );
    assert.equal(problem(exchange(200, 'not json at all', { 'content-type': 'application/json' })), undefined);
    const { request } = exchange(200, '');
    assert.equal(
      configurationProblem({ request, error: 'no answer: socket hang up (ECONNRESET)', timedOut: false }, [], config),
      undefined,
    );
    assert.equal(configurationProblem(undefined, [], config), undefined);
  });

  it('the server faults each rule must not swallow, from the answers alone: JSON elsewhere, the token accepted elsewhere, the order found elsewhere, a number needing percent-encoding', () => {
    const config = { orderNumber: ORDER, token: 'some-token' };
    const bearer = { authorization: 'Bearer some-token' };
    const sent = (
      e: Exchange,
      headers: Record<string, string>,
      operation: Exchange['request']['operation'] = 'getOrderInfo',
    ): Exchange => ({
      ...e,
      request: { ...e.request, operation, headers },
    });
    const page = exchange(200, '<!DOCTYPE html><html><head><title>Order</title></head></html>', { 'content-type': 'text/html' });
    // Rule 1: an HTML page for the order while another answer of the run is JSON: the API is there.
    assert.equal(configurationProblem(page, [page, exchange(404, '{"title":"Not Found"}')], config), undefined);
    assert.match(
      configurationHints(page, [page, exchange(404, '{}')], config)[0] ?? '',
      /HTML page while other answers of the run were JSON/,
    );
    // A JSON body under an HTML label is no HTML page.
    assert.equal(configurationProblem(exchange(200, '{"order":{}}', { 'content-type': 'text/html' }), [], config), undefined);
    // Rules 2 and 3: the token refused on the main order, but accepted elsewhere (a 2xx with it; a 404 with it where no credentials get 401).
    const refused = sent(exchange(401, '{}'), bearer);
    assert.equal(configurationProblem(refused, [refused, sent(exchange(200, '{}'), bearer)], config), undefined);
    const noCredentials = sent(exchange(401, '{}'), {});
    const unknownWithToken = sent(exchange(404, '{}'), bearer);
    assert.equal(configurationProblem(refused, [refused, noCredentials, unknownWithToken], config), undefined);
    assert.match(
      configurationHints(refused, [refused, noCredentials, unknownWithToken], config)[0] ?? '',
      /accepted it elsewhere .*: either the token's user may not read this order .* or the server's authorization is wrong/,
    );
    // ... but a 404 with the token proves nothing where the operation does not refuse a request without credentials.
    assert.equal(configurationProblem(refused, [refused, unknownWithToken], config)?.option, '--token');
    // Rule 5: the main order answered 404, but another request found it.
    const missing = sent(exchange(404, '{}'), bearer);
    const found = sent(exchange(200, `{"order":{"orderNumber":"${ORDER}"}}`), bearer);
    assert.equal(configurationProblem(missing, [missing, noCredentials, found], config), undefined);
    assert.match(configurationHints(missing, [missing, found], config)[0] ?? '', /another request of the run found it/);
    // Rules 4 and 5: a number that needs percent-encoding: never a configuration error, both explanations named.
    for (const number of ['ORD%2026', 'ORD?1', 'ORD#1', 'ORD/1', 'WE 2026-0003']) {
      const facts = { orderNumber: number, token: 'some-token' };
      assert.equal(configurationProblem(missing, [missing, noCredentials], facts), undefined, number);
      assert.equal(configurationProblem(missing, [missing, exchange(404, '{}')], facts), undefined, `${number}: every answer 404`);
      assert.match(
        configurationHints(missing, [missing], facts)[0] ?? '',
        /needs percent-encoding in the path .*: either the server .*; or --order-number names no order on this server/,
      );
    }
    assert.match(decodingExplanation('ORD%20') ?? '', /decodes the path twice/);
    assert.match(decodingExplanation('ORD?1') ?? '', /before cutting off its query or fragment/);
    assert.match(decodingExplanation('ORD/1') ?? '', /takes `%2F` for `\/`/);
    assert.equal(decodingExplanation('ORD-2026-0001'), undefined);
  });

  it('an HTML page: by how its body starts (WHATWG sniffing patterns), never by its label alone, never JSON', () => {
    assert.ok(!looksLikeHtml({ status: 200, headers: { 'content-type': 'application/xhtml+xml' }, text: '' }), 'a label alone');
    assert.ok(!looksLikeHtml({ status: 200, headers: { 'content-type': 'text/html' }, text: '{"order":{}}' }), 'JSON labelled text/html');
    assert.ok(looksLikeHtml({ status: 200, headers: {}, text: '<?xml version="1.0"?>\n<!DOCTYPE html><html>' }));
    assert.ok(looksLikeHtml({ status: 200, headers: {}, text: '\uFEFF  <!-- proxy -->\n<HTML lang="en">' }));
    assert.ok(looksLikeHtml({ status: 502, headers: { 'content-type': 'text/plain' }, text: '<head><title>502 Bad Gateway</title>' }));
    assert.ok(!looksLikeHtml({ status: 200, headers: { 'content-type': 'application/json' }, text: '{"html":"<html>"}' }));
    assert.ok(!looksLikeHtml({ status: 200, headers: {}, text: '<htmlx>' }));
  });

  it('an HTML login page at --base-url: exit 2 naming --base-url and the page title; the summary and the report list the checks', async () => {
    const server = await answering(
      200,
      'text/html; charset=utf-8',
      '<!doctype html><html><head><title>Sign in · Example SSO</title></head><body><form method="post"><input type="password"></form></body></html>',
    );
    try {
      assertConfiguration(
        await run(server.url),
        '--base-url',
        /HTML page \(title "Sign in · Example SSO"\).*; point --base-url at the API itself/,
      );
    } finally {
      await server.close();
    }
  });

  it("a proxy's error page (502, HTML without a media type): exit 2 naming --base-url", async () => {
    const server = await answering(502, undefined, '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>nginx</body></html>');
    try {
      assertConfiguration(await run(server.url), '--base-url', /answered 502 with an HTML page \(title "502 Bad Gateway"\)/);
    } finally {
      await server.close();
    }
  });

  it('nothing but 401s (a gateway refusing everything): exit 2 naming --token', async () => {
    const server = await answering(401, 'application/json', '{"error":"unauthorized"}');
    try {
      assertConfiguration(
        await run(server.url),
        '--token',
        /^every request \(\d+\) was answered 401, .*; pass --token \(or set CONFORMANCE_TOKEN\)/,
      );
    } finally {
      await server.close();
    }
  });

  it('the token refused on the main order (403: not every answer a 401): exit 2 naming --token', async () => {
    const server = await startReferenceServer(['auth-403']);
    try {
      assertConfiguration(
        await run(server.url, 'a-token-the-server-refuses'),
        '--token',
        /^the token was refused \(403\) on the main order "ORD-2026-0001"; pass --token/,
      );
    } finally {
      await server.close();
    }
  });

  it('nothing but 404s (--base-url without the base path): exit 2 naming --base-url, and --order-number', async () => {
    const server = await answering(404, 'application/json', '{}');
    try {
      assertConfiguration(
        await run(server.url),
        '--base-url',
        /every request \(\d+\) was answered 404.*; check --base-url .* and --order-number/,
      );
    } finally {
      await server.close();
    }
  });

  it('the main order not found (other answers than 404 too): exit 2 naming --order-number', async () => {
    const server = await startReferenceServer();
    try {
      assertConfiguration(
        await run(server.url, REFERENCE_TOKEN, 'ORD-NOT-THERE'),
        '--order-number',
        /^the main order "ORD-NOT-THERE" was answered 404 \(not found\); pass --order-number with an existing order/,
      );
    } finally {
      await server.close();
    }
  });

  it('a broken server is not a configuration error: a main answer that is not JSON (and no HTML page) fails, exit 1', async () => {
    const server = await answering(200, 'application/json', 'Internal error: see the logs');
    try {
      const result = await run(server.url);
      assert.equal(result.exitCode, 1, result.text);
      assert.equal(result.verdict.outcome, 'failed');
      assert.equal(result.verdict.configuration, undefined);
      assert.deepEqual(reportProblems(result.report), []);
    } finally {
      await server.close();
    }
  });

  describe('the server fault each rule must not swallow: exit 1, naming both explanations where there are two', () => {
    /** Exit 1 (no configuration error), the report valid; the hints joined. */
    function assertServerFault(result: Awaited<ReturnType<typeof run>>): string {
      assert.equal(result.verdict.configuration, undefined, result.verdict.configuration?.reason);
      assert.equal(result.exitCode, 1, result.text);
      assert.equal(result.verdict.outcome, 'failed');
      assert.deepEqual(reportProblems(result.report), []);
      return result.verdict.hints.join('\n');
    }

    it("rule 1 (an HTML page): the order's JSON labelled text/html is a contract failure, naming the media type", async () => {
      const server = await startReferenceServer(['order-labelled-html']);
      try {
        const result = await run(server.url, REFERENCE_TOKEN);
        assertServerFault(result);
        const shape = result.verdict.checks.find((c) => c.id === 'getOrderInfo.answer-shape');
        assert.equal(shape?.status, 'failed');
        assert.match(shape?.message ?? '', /text\/html/);
        // The creates ran: the lots were read from the JSON body whatever its label.
        assert.equal(result.verdict.checks.find((c) => c.id === 'createLotTransfer.valid-request-2xx')?.status, 'passed');
      } finally {
        await server.close();
      }
    });

    it('rule 1 (an HTML page): the order rendered as an HTML view while the API answers JSON elsewhere is a failure', async () => {
      const server = await startReferenceServer(['order-html-view']);
      try {
        const hints = assertServerFault(await run(server.url, REFERENCE_TOKEN));
        assert.match(hints, /was answered 200 with an HTML page while other answers of the run were JSON: the API is at --base-url/);
      } finally {
        await server.close();
      }
    });

    it('rules 2 and 3 (the token refused): a token refused on the first request of each connection (accepted on the next) is a failure', async () => {
      const server = await startReferenceServer(['auth-cold-connection']);
      try {
        const result = await run(server.url, REFERENCE_TOKEN);
        const hints = assertServerFault(result);
        assert.match(
          hints,
          /the token was refused \(401\) on the main order "ORD-2026-0001", but the server accepted it elsewhere \(GET \S+ answered 200\)/,
        );
      } finally {
        await server.close();
      }
    });

    it('rule 3 (the token refused): the main order refused 403 while an unknown number is answered 404 with the token (no credentials: 401) names both explanations', async () => {
      const server = await startReferenceServer(['order-403']);
      try {
        const hints = assertServerFault(await run(server.url, REFERENCE_TOKEN));
        assert.match(
          hints,
          /refused \(403\) .* either the token's user may not read this order \(pass --order-number of one it may read\) or the server's authorization is wrong/,
        );
      } finally {
        await server.close();
      }
    });

    const DECODERS = [
      { fault: 'path-decoded-twice', number: 'ORD%2026-0001', way: /decodes the path twice/ },
      { fault: 'path-decoded-before-split', number: 'ORD?2026-0001', way: /before cutting off its query or fragment/ },
      { fault: 'path-decoded-before-split', number: 'ORD#2026-0001', way: /before cutting off its query or fragment/ },
      // %2F taken for `/`: every request of the run is answered 404 (rule 4 would have said --base-url).
      { fault: 'path-slash-decoded', number: 'ORD/2026-0001', way: /takes `%2F` for `\/`/ },
    ];
    for (const { fault, number, way } of DECODERS) {
      it(`rules 4 and 5 (not found): a server that decodes the order number wrongly (${fault}, --order-number ${number}) fails, the failure naming both explanations`, async () => {
        const server = await startReferenceServer([fault], { orderAliases: { [number]: ORDER } });
        const correct = await startReferenceServer([], { orderAliases: { [number]: ORDER } });
        try {
          // A correct server holding that number passes.
          assert.equal((await run(correct.url, REFERENCE_TOKEN, number)).exitCode, 0);
          const result = await run(server.url, REFERENCE_TOKEN, number);
          const hints = assertServerFault(result);
          const main = result.verdict.checks.find((c) => c.id === 'getOrderInfo.valid-request-2xx');
          assert.equal(main?.status, 'failed');
          for (const text of [main?.message ?? '', hints]) {
            assert.match(text, /needs percent-encoding in the path/);
            assert.match(text, way);
            assert.match(text, /or --order-number names no order on this server/);
          }
        } finally {
          await server.close();
          await correct.close();
        }
      });
    }

    it('TLS: a server that resets every connection after a trusted handshake is no certificate problem: exit 1', async () => {
      const cert = join(TESTING, 'tls-test-cert.pem');
      const server = await listenOn(
        https.createServer({ key: readFileSync(join(TESTING, 'tls-test-key.pem')), cert: readFileSync(cert) }, (req) =>
          req.socket.destroy(),
        ),
      );
      try {
        let text = '';
        const { exitCode, verdict } = await runConformance(
          resolveConformanceConfig({ baseUrl: server.url, token: 'some-token', caPath: cert, level: 'spec', timeoutMs: 2000 }),
          { write: (t) => void (text += t) },
        );
        assert.equal(exitCode, 1, text);
        assert.equal(verdict.configuration, undefined);
      } finally {
        await server.close();
      }
    });

    it('TLS: a plain-HTTP server that closes every connection unanswered at http:// is no protocol mismatch: exit 1', async () => {
      const server = await listen((req) => req.socket.destroy());
      try {
        const { exitCode, verdict } = await runConformance(
          resolveConformanceConfig({ baseUrl: server.url, token: 'some-token', level: 'spec', timeoutMs: 2000 }),
          { write: () => undefined },
        );
        assert.equal(exitCode, 1);
        assert.equal(verdict.configuration, undefined);
      } finally {
        await server.close();
      }
    });
  });
});
