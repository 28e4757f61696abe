/** The one redactor: the options each tool uses (placeholder, pieces, a cap on learnt secrets) on the same engine. */
import assert from 'node:assert/strict';
import { createRedactor, escapeControls, escapeControlsUnicode, LearningRedactor } from './redactor.js';

describe('redaction: the shared redactor', () => {
  const token = 'tok_Abc123/xyz+Q';

  it('hides every form of a secret behind the chosen placeholder (the suite <redacted>, the proxy [REDACTED])', () => {
    const suite = createRedactor([token]);
    const proxy = createRedactor([token], { placeholder: '[REDACTED]' });
    for (const form of [token, encodeURIComponent(token), Buffer.from(`user:${token}`).toString('base64'), JSON.stringify(token)]) {
      assert.ok(!suite.redact(form).includes(token) && suite.redact(form).includes('<redacted>'), form);
      assert.ok(proxy.redact(form).includes('[REDACTED]'), form);
    }
    assert.equal(suite.redact('https://user:pw@host/x'), 'https://host/x');
  });

  it('pieces of a secret are hidden unless turned off; learning keeps the latest secrets under a cap', () => {
    assert.equal(createRedactor([token]).redact(token.slice(0, 10)), '<redacted>');
    assert.equal(createRedactor([token], { pieces: false }).redact(token.slice(0, 10)), token.slice(0, 10));
    const learning = new LearningRedactor({ maxSecrets: 2 });
    for (const s of ['first-secret', 'second-secret', 'third-secret']) learning.learn(s);
    assert.deepEqual(learning.secrets, ['second-secret', 'third-secret']);
    assert.equal(learning.redact('first-secret third-secret'), 'first-secret <redacted>');
  });

  it('escapes control characters as \\xHH or, for the proxy, \\uHHHH', () => {
    assert.equal(escapeControls('a\u001b[31m'), 'a\\x1b[31m');
    assert.equal(escapeControlsUnicode('a\u001b[31m\u202e'), 'a\\u001b[31m\\u202e');
  });
});
