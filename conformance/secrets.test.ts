/** secrets.ts: every form of every credential of a run is hidden; control characters are escaped. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMockServer } from '../mock/index.js';
import { basicCredentials } from '../checks/credentials.js';
import { MOCK_TOKEN, resolveConformanceConfig } from './config.js';
import { runConformance } from './run.js';
import type { Verdict } from '../report/results.js';
import {
  createRedactor,
  credentialsOf,
  escapeControls,
  formsOf,
  PLACEHOLDER,
  redactorFor,
  sanitizeVerdict,
  userinfoSecrets,
  withoutUserinfo,
} from './secrets.js';

const TOKEN = 'tok_Secret/42+abc==';
const redactor = redactorFor({
  token: TOKEN,
  rejectedToken: 'revoked-token-77',
  baseUrl: 'https://gate%40user:p%40ss-word@h.example:8443/api',
});

/** `secret` in JSON with the characters `pick` chooses written as `\\uXXXX` (upper-case hex with `upper`). */
function unicodeEscaped(secret: string, pick: (i: number) => boolean, upper = false): string {
  return [...secret]
    .map((c, i) => {
      if (!pick(i)) return JSON.stringify(c).slice(1, -1);
      const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
      return `\\u${upper ? hex.toUpperCase() : hex}`;
    })
    .join('');
}

/** Every encoding of `secret` embedded in text, as a server or a report may carry it. */
function encodings(secret: string): string[] {
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  return [
    secret,
    unicodeEscaped(secret, () => true),
    unicodeEscaped(secret, () => true, true),
    unicodeEscaped(secret, (i) => i % 2 === 1),
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    JSON.stringify(secret),
    JSON.stringify(secret).replace(/\//g, '\\/'),
    b64(secret),
    Buffer.from(secret).toString('base64url'),
    b64(`user:${secret}`),
    b64(`ab:${secret}`),
    b64(`a:${secret}`),
    Buffer.from(`x-${secret}-y`).toString('base64url'),
    b64(JSON.stringify({ authorization: `Bearer ${secret}` })),
  ];
}

describe('secrets: redaction of every credential in every form', () => {
  it('knows the token, its Basic credential, a non-default rejected token and the URL userinfo', () => {
    const secrets = credentialsOf({ token: TOKEN, rejectedToken: 'revoked-token-77', baseUrl: 'https://u%3Ax:pw@h' });
    for (const s of [TOKEN, basicCredentials(TOKEN), 'revoked-token-77', 'u%3Ax', 'u:x', 'pw']) assert.ok(secrets.includes(s), s);
    // The documented default rejected token is not a secret (it is a common word).
    assert.ok(!credentialsOf({ token: TOKEN, rejectedToken: 'invalid' }).includes('invalid'));
    assert.deepEqual(userinfoSecrets('http://h:1'), []);
    assert.deepEqual(userinfoSecrets('not a url'), []);
  });

  for (const secret of [TOKEN, 'revoked-token-77', 'p@ss-word', basicCredentials(TOKEN)]) {
    it(`hides ${secret} in plain, percent-encoded, JSON-escaped (also \\u in any mix, either case) and base64 forms (each alignment)`, () => {
      for (const form of encodings(secret)) {
        const text = `before ${form} after`;
        const out = redactor.redact(text);
        assert.ok(out.includes(PLACEHOLDER), `${form} → ${out}`);
        for (const leaked of encodings(secret)) if (leaked.length >= 8) assert.ok(!out.includes(leaked), `${leaked} in ${out}`);
        assert.ok(!out.includes(secret), out);
      }
    });
  }

  it('hides every byte percent-encoded and HTML-escaped forms', () => {
    const r = createRedactor(['a&b<c>d"e']);
    assert.equal(r.redact('x a&amp;b&lt;c&gt;d&quot;e y'), `x ${PLACEHOLDER} y`);
    const everyByte = [...Buffer.from(TOKEN)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
    assert.equal(redactor.redact(everyByte), PLACEHOLDER);
  });

  it('removes userinfo from every URL shown', () => {
    assert.equal(withoutUserinfo('see https://u:p@h.example:8/x and ftp://a@b'), 'see https://h.example:8/x and ftp://b');
    assert.equal(redactor.redact('target https://gate%40user:p%40ss-word@h.example:8443/api'), 'target https://h.example:8443/api');
  });

  it('a short secret is hidden only where credentials go, never garbling other text', () => {
    const r = createRedactor(['t']);
    assert.equal(r.redact('Authorization: Bearer t'), `Authorization: Bearer ${PLACEHOLDER}`);
    assert.equal(r.redact('{"authorization":"t","note":"the test"}'), `{"authorization":"${PLACEHOLDER}","note":"the test"}`);
    assert.equal(r.redact('token=t&x=1'), `token=${PLACEHOLDER}&x=1`);
    assert.equal(r.redact('Bearer tt stays, Bearer T stays'), 'Bearer tt stays, Bearer T stays');
    assert.equal(r.redact('the test sample'), 'the test sample');
  });

  it('hides a piece of 8 or more characters of a longer secret (cut excerpts, parser messages), not shorter ones', () => {
    assert.equal(
      redactor.redact('Unexpected token, "tok_Secre"... is not valid JSON'),
      `Unexpected token, "${PLACEHOLDER}"... is not valid JSON`,
    );
    assert.equal(redactor.redact('answer: Bearer tok_Secret/4… (900 chars)'), `answer: Bearer ${PLACEHOLDER}… (900 chars)`);
    assert.equal(redactor.redact('tok_Secr is 8, tok_Sec is 7'), `${PLACEHOLDER} is 8, tok_Sec is 7`);
  });

  it('the documented defaults are not secrets: the mock token (no --base-url) and the rejected token invalid', () => {
    assert.deepEqual(credentialsOf({ token: 'conformance-token', rejectedToken: 'invalid' }), [basicCredentials('conformance-token')]);
    assert.ok(credentialsOf({ token: 'conformance-token', rejectedToken: 'invalid', baseUrl: 'http://h' }).includes('conformance-token'));
  });

  it('forms of a long secret: none shorter than the scanning minimum', () => {
    for (const form of formsOf('abcdef')) assert.ok(form.length >= 6, form);
  });
});

describe('secrets: control characters', () => {
  it('escapes ESC, CR, BEL, C1, DEL, bidi overrides and lone surrogates; keeps newline, tab and text', () => {
    assert.equal(
      escapeControls('a\u001b[32mPASSED\u001b[0m\r\u0007\u009b\u007f\u202e\ud800 ok\n\tü😀'),
      'a\\x1b[32mPASSED\\x1b[0m\\x0d\\x07\\x9b\\x7f\\u202e\\ud800 ok\n\tü😀',
    );
  });
});

describe('secrets: sanitizeVerdict', () => {
  const verdict: Verdict = {
    tool: 'goods-conformance',
    level: 'strict',
    seed: 1,
    runMarker: 'CONF-1',
    target: 'https://gate%40user:p%40ss-word@h.example:8443/api',
    contract: { path: 'api/\u001b[31mopenapi.yaml', sha256: 'ab'.repeat(32) },
    startedAt: '2026-11-22T02:00:00.000Z',
    durationMs: 5,
    outcome: 'failed',
    exitCode: 1,
    passed: false,
    counts: { total: 1, passed: 0, failed: 1, skipped: 0, notRun: 0, cases: 1 },
    operationsTested: ['getOrderInfo'],
    leftOut: [],
    unchecked: [],
    hints: [`the token ${TOKEN} was refused`],
    coverage: [{ rule: 'r', level: 'spec', checks: ['c'], casesSent: 1, verdict: 'failed' }],
    writes: 0,
    recordsCreated: 0,
    checks: [
      {
        id: 'c',
        level: 'spec',
        operation: 'getOrderInfo',
        operations: ['getOrderInfo'],
        title: 't',
        rule: 'r',
        status: 'failed',
        message: `answer: 200 {"h":"Bearer ${TOKEN}"} \u001b[32mPASSED\u001b[0m`,
        failure: {
          rule: 'r',
          expected: 'e',
          actual: 'a',
          request: {
            method: 'GET',
            path: '/x',
            headers: { authorization: 'Bearer t', 'x-echo': Buffer.from(`u:${TOKEN}`).toString('base64') },
          },
          status: 200,
          answer: `{"echo":"${encodeURIComponent(TOKEN)}"}`,
        },
        cases: [{ name: 'c1', status: 'failed', message: `Bearer ${TOKEN}` }],
        durationMs: 1,
      },
    ],
  };

  it('redacts every string, hides Authorization values of any length, strips userinfo, escapes ESC; the input is unchanged', () => {
    const before = JSON.stringify(verdict);
    const clean = sanitizeVerdict(verdict, redactor);
    const text = JSON.stringify(clean);
    assert.equal(JSON.stringify(verdict), before);
    for (const form of encodings(TOKEN)) assert.ok(!text.includes(form), form);
    assert.ok(!text.includes('\\u001b'), 'no raw ESC left');
    assert.ok(!text.includes('p%40ss'));
    assert.equal(clean.target, 'https://h.example:8443/api');
    assert.equal(clean.checks[0]?.failure?.request?.headers['authorization'], `Bearer ${PLACEHOLDER}`);
    assert.match(clean.checks[0]?.message ?? '', /\\x1b\[32mPASSED/);
    assert.deepEqual(clean.contract, { path: 'api/\\x1b[31mopenapi.yaml', sha256: 'ab'.repeat(32) });
    assert.equal(clean.counts.failed, 1);
  });
});

describe('secrets: the built-in token is redacted as a credential, not as the words it is made of', function () {
  this.timeout(60_000);

  for (const where of ['the in-process mock', 'a mock at --base-url started with --token conformance-token'] as const) {
    it(`${where}: the reports show "goods conformance:" and conformance_unknown_member, never goods<redacted>`, async () => {
      const mock = where.startsWith('a mock')
        ? await createMockServer({ host: '127.0.0.1', port: 0, quiet: true, tokens: [MOCK_TOKEN] })
        : undefined;
      const output = mkdtempSync(join(tmpdir(), 'token-words-'));
      try {
        let text = '';
        const config = resolveConformanceConfig({
          ...(mock ? { baseUrl: mock.url.replace(/\/+$/, ''), token: MOCK_TOKEN } : {}),
          level: 'strict',
          seed: 3,
          reporters: ['json', 'html', 'junit'],
          outputDir: output,
        });
        const { exitCode } = await runConformance(config, { write: (t) => void (text += t) });
        assert.equal(exitCode, 0, text);
        const files = ['conformance.json', 'conformance.html', 'junit.xml'].map((f) => readFileSync(join(output, f), 'utf8'));
        assert.match(text, /^goods conformance: level strict/);
        assert.match(files[0] ?? '', /unknown member conformance_unknown_member/);
        assert.match(files[1] ?? '', /goods conformance: PASSED/);
        for (const out of [text, ...files])
          assert.deepEqual(
            [...out.matchAll(/.{0,80}(?:<redacted>|&lt;redacted&gt;).{0,40}/g)].map((m) => m[0]),
            [],
          );
      } finally {
        rmSync(output, { recursive: true, force: true });
        await mock?.close();
      }
    });
  }

  it('with --base-url, the token conformance-token itself and its pieces are still hidden', () => {
    const redactor = redactorFor({ token: MOCK_TOKEN, rejectedToken: 'invalid', baseUrl: 'http://h' });
    assert.equal(
      redactor.redact('echo conformance-token and conformance-tok… and goods conformance:'),
      'echo <redacted> and <redacted>… and goods conformance:',
    );
  });
});
