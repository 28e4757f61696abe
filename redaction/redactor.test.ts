/** The one redactor: one marker, every form of a known secret, the options each tool uses (pieces, a cap on learnt secrets). */
import assert from 'node:assert/strict';
import { createRedactor, escapeControls, escapeControlsUnicode, LearningRedactor, REDACTED } from './redactor.js';

describe('redaction: the shared redactor', () => {
  const token = 'tok_Abc123/xyz+Q';

  it('hides every form of a secret behind the one marker <redacted>, as the suite and the proxy use it', () => {
    assert.equal(REDACTED, '<redacted>');
    const suite = createRedactor([token]);
    const proxy = new LearningRedactor({ pieces: false, maxSecrets: 256 });
    proxy.learnAuthorization(`Bearer ${token}`);
    for (const form of [token, encodeURIComponent(token), Buffer.from(`user:${token}`).toString('base64'), JSON.stringify(token)]) {
      for (const redactor of [suite, proxy]) {
        const out = redactor.redact(`x ${form} y`);
        assert.ok(!out.includes(token) && out.includes('<redacted>') && !out.includes('[REDACTED]'), `${form} → ${out}`);
      }
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

  it('a credential is hidden as a credential, not the ordinary words it is made of (the token conformance-token)', () => {
    const redactor = createRedactor(['conformance-token', 'conformance-toke', 'CONFORMANCE-TOKEN']);
    // The words the token is made of, written whole: the tool's name, a member name, an order number.
    for (const text of [
      'goods conformance: level strict',
      '{"conformance_unknown_member":1}',
      'CONFORMANCE-UNKNOWN CONF-1',
      'nonconformance',
      'Conformance report',
    ])
      assert.equal(redactor.redact(text), text);
    // The token itself, its encodings and its pieces are still hidden.
    assert.equal(redactor.redact('Bearer conformance-token'), 'Bearer <redacted>');
    assert.equal(redactor.redact(`x ${Buffer.from('conformance-token').toString('base64')} y`), 'x <redacted> y');
    assert.equal(redactor.redact('{"echo":"conformance-tok…'), '{"echo":"<redacted>…');
    assert.equal(redactor.redact('"conforman" is not valid'), '"<redacted>" is not valid', 'a cut word is a piece');
    assert.equal(redactor.redact('ance-tok'), '<redacted>');
    // A secret made of the token twice: its piece `n conformance` in a text is the end of another word
    // and the word itself; a piece past the word is still hidden.
    const doubled = createRedactor(['conformance-token conformance-token']);
    for (const text of ['mock session conformance: the records', 'Token conformance', 'conformance-tokyo'])
      assert.equal(doubled.redact(text), text);
    assert.equal(doubled.redact('session conformance-tok…'), 'sessio<redacted>…', 'a cut piece after the word is hidden');
    assert.equal(doubled.redact('"ken conformance"'), '"<redacted>"', 'letters of the secret not part of a word of the text');
    // A random token has no ordinary word: any 8 characters of it are hidden.
    assert.equal(createRedactor(['tok_Abc123/xyz+Q']).redact('Abc123/x'), '<redacted>');
    assert.equal(createRedactor(['passwordpassword']).redact('password'), '<redacted>', 'a one-word secret is no ordinary word');
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

describe('redaction: what the proxy learns from traffic', () => {
  const token = 'tok_Abc123/xyz+Q';
  const proxyRedactor = (): LearningRedactor => new LearningRedactor({ pieces: false, maxSecrets: 256 });

  it('hides a learnt bearer token in plain, percent-encoded, JSON-escaped (also \\u in any mix) and base64 forms (at any offset, standard and URL-safe)', () => {
    const redactor = proxyRedactor();
    redactor.learnAuthorization(`Bearer ${token}`);
    const forms = [
      token,
      encodeURIComponent(token),
      encodeURIComponent(token).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
      JSON.stringify(token).slice(1, -1),
      Buffer.from(token).toString('base64'),
      Buffer.from(`x${token}`).toString('base64'),
      Buffer.from(`xy${token}`).toString('base64'),
      Buffer.from(`user:${token}`).toString('base64url'),
      // JSON \u escapes: every character, upper-case hex, and a mix with plain characters.
      [...token].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
      [...token].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`).join(''),
      [...token].map((c, i) => (i % 2 === 0 ? `\\u00${c.charCodeAt(0).toString(16)}` : c)).join(''),
    ];
    for (const form of forms) {
      const text = redactor.redact(`before ${form} after`);
      assert.ok(text.includes('<redacted>'), `${form} → ${text}`);
      assert.ok(!text.includes(token), text);
    }
    // the base64 core of the token is gone: no 8 characters of its plain base64 remain
    const encoded = Buffer.from(`xy${token}`).toString('base64');
    assert.ok(!redactor.redact(encoded).includes(encoded.slice(4, 12)));
  });

  it('learns Basic credentials whole, as user:password and as the password; hides credential headers whatever their value', () => {
    const redactor = proxyRedactor();
    const basic = Buffer.from('alice:pa55word!').toString('base64');
    redactor.learnAuthorization(`Basic ${basic}`);
    assert.equal(redactor.redact('pw: pa55word!'), 'pw: <redacted>');
    assert.equal(redactor.redact('alice:pa55word!'), '<redacted>');
    assert.deepEqual(
      redactor.headers({ authorization: 'Basic x', cookie: 'a=b', 'set-cookie': 'sid=1; Path=/', 'x-other': basic, 'x-plain': 'stays' }),
      { authorization: 'Basic <redacted>', cookie: '<redacted>', 'set-cookie': '<redacted>', 'x-other': '<redacted>', 'x-plain': 'stays' },
    );
  });

  it('hides credential-named JSON members and query parameters, and learns their values for every other form', () => {
    const redactor = proxyRedactor();
    redactor.learnFromText('{"user":"bob","client_secret":"s3cr3t-value-1","apiKey":"k3y-value-22"}');
    redactor.learnFromText('/path?access_token=q%2Btok-33333&x=1');
    // A form body (no quote) and a JSON text with a parameter inside a string: each pattern still runs where it can match.
    redactor.learnFromText('password=f0rm-value-44&x=1');
    redactor.learnFromText('{"note":"see token=p4ram-value-55"}');
    redactor.learnFromText('/orders/info/no-credentials-here');
    assert.deepEqual(redactor.secrets.slice(-2), ['f0rm-value-44', 'p4ram-value-55']);
    assert.equal(redactor.redact('{"client_secret": "s3cr3t-value-1", "n": 1}'), '{"client_secret": "<redacted>", "n": 1}');
    assert.equal(redactor.redact('?access_token=abcdef&x=1'), '?access_token=<redacted>&x=1');
    for (const secret of ['s3cr3t-value-1', 'k3y-value-22', 'q+tok-33333']) {
      assert.equal(redactor.redact(`echo ${Buffer.from(secret).toString('base64')}`), 'echo <redacted>', secret);
      assert.equal(redactor.redact(`echo ${secret} end`), 'echo <redacted> end', secret);
    }
    assert.equal(redactor.redact('{"tokenCount": 3, "name": "x"}'), '{"tokenCount": 3, "name": "x"}', 'numbers and other members stay');
  });

  it('keeps at most its cap of secrets (the latest) and does not learn very short ones from traffic', () => {
    const redactor = proxyRedactor();
    for (let i = 0; i < 300; i++) redactor.learn(`secret-number-${i}`);
    assert.equal(redactor.redact('secret-number-299'), '<redacted>');
    assert.equal(redactor.redact('secret-number-0'), 'secret-number-0', 'the oldest secret was let go');
    redactor.learnAuthorization('Bearer abc');
    assert.ok(!redactor.secrets.includes('abc'));
    assert.equal(redactor.redact('abc Bearer abc'), 'abc Bearer abc');
  });

  it('makes a header sent again the latest, also when it was the last header learnt (other secrets came between)', () => {
    const redactor = new LearningRedactor({ pieces: false, maxSecrets: 2 });
    redactor.learnAuthorization('Bearer token-aaaaaa');
    redactor.learnAuthorization('Bearer token-aaaaaa');
    redactor.learn('secret-bbbbbb');
    redactor.learnAuthorization('Bearer token-aaaaaa');
    redactor.learn('secret-cccccc');
    assert.deepEqual(redactor.secrets, ['token-aaaaaa', 'secret-cccccc'], 'the oldest (secret-bbbbbb) was let go, not the token in use');
    redactor.learnAuthorization('Bearer token-dddddd');
    assert.deepEqual(redactor.secrets, ['secret-cccccc', 'token-dddddd']);
  });
});
