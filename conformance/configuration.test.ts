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
import { listen, type Loopback } from '../support/loopback.js';
import { resolveConformanceConfig } from './config.js';
import { configurationProblem, looksLikeHtml } from './configuration.js';
import type { Exchange } from './http.js';
import { reportProblems } from './report/schema.js';
import { runConformance, type RunResult } from './run.js';
import { REFERENCE_TOKEN, startReferenceServer } from './self-test/reference-server.js';

const ORDER = 'ORD-2026-0001';

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
  this.timeout(20_000);

  it('what the answers show, in order: an HTML page, nothing but 401s, the token refused, nothing but 404s, the main order not found', () => {
    const config = { orderNumber: ORDER };
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

  it('an HTML page: by its media type or by how its body starts (WHATWG sniffing patterns), never JSON', () => {
    assert.ok(looksLikeHtml({ status: 200, headers: { 'content-type': 'application/xhtml+xml' }, text: '' }));
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
});
