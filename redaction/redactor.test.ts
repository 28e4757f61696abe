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

  it('hides a secret written with JSON \\u escapes, any mix of escaped and plain characters, either case of hex', () => {
    // Regex metacharacters, a quote, a backslash, a slash, a non-ASCII and an astral character.
    const secret = 'Zq.*+?^${}()|[]\\/"x-é😀';
    const unit = (i: number, upper: boolean): string => {
      const hex = secret.charCodeAt(i).toString(16).padStart(4, '0');
      return `\\u${upper ? hex.toUpperCase() : hex}`;
    };
    const plain = (i: number): string => JSON.stringify(secret.charAt(i)).slice(1, -1);
    const written = (pick: (i: number) => 'plain' | 'lower' | 'upper'): string =>
      Array.from({ length: secret.length }, (_, i) => (pick(i) === 'plain' ? plain(i) : unit(i, pick(i) === 'upper'))).join('');
    const forms = [
      written(() => 'lower'),
      written(() => 'upper'),
      written((i) => (i % 2 === 0 ? 'lower' : 'plain')),
      written((i) => (i % 3 === 0 ? 'plain' : i % 3 === 1 ? 'upper' : 'lower')),
      written((i) => (i === secret.length - 1 ? 'upper' : 'plain')),
    ];
    const redactor = createRedactor([secret]);
    for (const form of forms) {
      assert.equal(redactor.redact(`{"echo":"${form}","n":1}`), '{"echo":"<redacted>","n":1}', form);
      assert.equal(redactor.redact(`${form}${form}`), '<redacted><redacted>', form);
    }
    // The escaped characters are the secret's own: a metacharacter matches only itself.
    const other = 'ZqX*+?^${}()|[]\\/"x-é😀';
    const near = Array.from({ length: other.length }, (_, i) => `\\u${other.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
    assert.equal(redactor.redact(near), near);
    // Escapes around and inside ordinary text are left as they are.
    assert.equal(redactor.redact('\\u0041 \\"q\\" \\\\u005a'), '\\u0041 \\"q\\" \\\\u005a');
    assert.equal(
      createRedactor(['tok_Abc123xyz']).redact('a \\u0074\\u006fk_Abc123xyz \\n b'),
      'a <redacted> \\n b',
      'a token with its first letters escaped',
    );
  });

  it('escapes control characters as \\xHH or, for the proxy, \\uHHHH', () => {
    assert.equal(escapeControls('a\u001b[31m'), 'a\\x1b[31m');
    assert.equal(escapeControlsUnicode('a\u001b[31m\u202e'), 'a\\u001b[31m\\u202e');
  });
});
