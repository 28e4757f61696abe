/**
 * No false redaction: a request without a credential and a 401 challenge go through the
 * proxy in front of the project's mock; the answer headers the client gets, `/__mock/violations`, the
 * log and the proxy's own reports show the challenge (`WWW-Authenticate: Bearer realm="goods-mock"`),
 * the documentation texts (`Authorization: Bearer <token>`) and the project's rule texts as they are:
 * the marker `<redacted>` stands only where a credential was. (That every form of a learnt token is
 * still hidden is `mock/proxy/proxy.test.ts`' echoing upstream and `redaction/redactor.test.ts`.)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checksFor } from '../../conformance/checks/index.js';
import type { Verdict } from '../../report/results.js';
import { redactorFor } from '../../conformance/secrets.js';
import { readContractFile } from '../../contract/document.js';
import { CONTRACT_JSON_PATH } from '../../contract/paths.js';
import { PROFILE, REQUEST, SPEC } from '../../judgments/rules.js';
import { PROBLEMS } from '../../mock/problems.js';
import { JUDGMENTS } from '../../mock/proxy/judgments.js';
import { ORDER_PATH, startMock } from '../../mock/testing.js';
import { LearningRedactor } from '../../redaction/redactor.js';
import { startProxy, violationsOf } from './support.js';

const MARKER = '<redacted>';
const count = (text: string, part: string): number => text.split(part).length - 1;

describe('validating proxy: no false redaction', () => {
  it('a request without a credential and a 401 challenge: the answer headers, the listing, the log and the reports show them as they are', async () => {
    const upstream = await startMock();
    const proxy = await startProxy(upstream.url, 'strict');
    const path = `${ORDER_PATH}ORD-2026-0001`;
    // A malformed credential (two words): the mock answers `error="invalid_token"`; the client broke the contract.
    const malformed = 'Bearer tok en-Malformed-77';
    try {
      const direct = await fetch(`${upstream.url}${path}`);
      await direct.arrayBuffer();
      const bare = await fetch(`${proxy.url}${path}`);
      await bare.arrayBuffer();
      assert.equal(bare.status, 401);
      assert.equal(bare.headers.get('www-authenticate'), 'Bearer realm="goods-mock"');
      assert.equal(bare.headers.get('www-authenticate'), direct.headers.get('www-authenticate'));
      const refused = await fetch(`${proxy.url}${path}`, { headers: { Authorization: malformed } });
      await refused.arrayBuffer();
      assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="goods-mock", error="invalid_token"');

      const seen = await violationsOf(proxy);
      assert.equal(seen.exchanges, 2);
      const [second, first] = seen.recent;
      assert.ok(first && second, 'both exchanges broke the contract (the client sent no bearer token)');
      // Without a credential: no marker anywhere in the exchange kept.
      assert.equal(count(JSON.stringify(first), MARKER), 0, JSON.stringify(first));
      assert.equal(first.answer.headers['www-authenticate'], 'Bearer realm="goods-mock"');
      assert.ok(first.answer.body.includes('send \\"Authorization: Bearer <token>\\"'), first.answer.body);
      assert.equal(first.violations[0]?.rule, 'request.bearer');
      // With a credential: the marker stands for it, once, and the challenge is as sent.
      assert.equal(second.request.headers['authorization'], `Bearer ${MARKER}`);
      assert.equal(second.answer.headers['www-authenticate'], 'Bearer realm="goods-mock", error="invalid_token"');
      assert.equal(count(JSON.stringify(second), MARKER), 1, JSON.stringify(second));

      const written = (await (await fetch(`${proxy.url}/__mock/report`, { method: 'POST' })).json()) as { files: string[] };
      assert.equal(written.files.length, 2);
      for (const file of written.files) {
        const text = readFileSync(file, 'utf8');
        assert.equal(count(text, MARKER), 0, `no marker in ${file}`);
        assert.equal(count(text, '[REDACTED]'), 0, `no other marker in ${file}`);
        assert.ok(text.includes('requires bearer credentials'), `the rule texts as written in ${file}`);
      }
      const verdict = JSON.parse(readFileSync(written.files.find((f) => f.endsWith('.json')) ?? '', 'utf8')) as Verdict;
      const bearer = verdict.checks.find((c) => c.id === 'getOrderInfo.request.bearer');
      assert.equal(bearer?.rule, REQUEST.bearer);
      assert.equal(bearer?.status, 'failed');
      const log = proxy.lines.join('\n');
      assert.equal(count(log, MARKER), 0, log);
      assert.match(log, /client violation getOrderInfo request\.bearer \[spec\] header authorization: no Authorization header/);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });

  it("the project's own texts (rules, check ids and titles, problem titles) pass both tools' redactors unchanged", () => {
    const token = 'a-learnt-Token-123';
    const suite = redactorFor({ token, rejectedToken: 'revoked-token-77', baseUrl: 'http://user:pw-123456@127.0.0.1:1' });
    const proxy = new LearningRedactor({ pieces: false, maxSecrets: 256 });
    proxy.learnAuthorization(`Bearer ${token}`);
    const texts = [
      ...Object.values(SPEC),
      ...Object.values(PROFILE),
      ...Object.values(REQUEST),
      ...Object.values(PROBLEMS).map((p) => p.title),
      ...checksFor(readContractFile(CONTRACT_JSON_PATH).document).flatMap((c) => [c.id, c.title, c.rule]),
      ...JUDGMENTS.flatMap((j) => [j.id, j.rule]),
    ];
    assert.ok(texts.length > 100, `${texts.length} texts`);
    for (const text of texts) {
      assert.equal(suite.redact(text), text);
      assert.equal(proxy.redact(text), text);
    }
    // Both hide the token, with the same marker.
    assert.equal(suite.redact(`x ${token} y`), `x ${MARKER} y`);
    assert.equal(proxy.redact(`x ${token} y`), `x ${MARKER} y`);
  });
});
