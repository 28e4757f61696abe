/** The proxy's redactor: every form of a seen credential replaced, in any text; a capped list of secrets. */
import assert from 'node:assert/strict';
import { printable, REDACTED, Redactor } from './redact.js';

describe('proxy redactor', () => {
  const token = 'tok_Abc123/xyz+Q';

  it('replaces a bearer token in plain, percent-encoded, JSON-escaped (also \\u in any mix) and base64 forms (at any offset, standard and URL-safe)', () => {
    const redactor = new Redactor();
    redactor.learnAuthorization(`Bearer ${token}`);
    const forms = [
      token,
      encodeURIComponent(token),
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
      const text = redactor.text(`before ${form} after`);
      assert.ok(text.includes(REDACTED), `${form} → ${text}`);
      assert.ok(!text.includes(token), text);
    }
    // the base64 core of the token is gone: no 8 characters of its plain base64 remain
    const encoded = Buffer.from(`xy${token}`).toString('base64');
    assert.ok(!redactor.text(encoded).includes(encoded.slice(4, 12)));
  });

  it('learns Basic credentials whole, as user:password and as the password; replaces any Bearer/Basic credential in free text', () => {
    const redactor = new Redactor();
    const basic = Buffer.from('alice:pa55word!').toString('base64');
    redactor.learnAuthorization(`Basic ${basic}`);
    assert.equal(redactor.text('pw=pa55word!'), `pw=${REDACTED}`);
    assert.equal(redactor.text('alice:pa55word!'), REDACTED);
    assert.equal(new Redactor().text('echo: Bearer never-seen-token'), `echo: Bearer ${REDACTED}`);
    assert.deepEqual(redactor.headers({ authorization: 'Basic x', cookie: 'a=b', 'x-other': basic }), {
      authorization: REDACTED,
      cookie: REDACTED,
      'x-other': REDACTED,
    });
  });

  it('hides credential-named JSON members and query parameters, and learns their values for every other form', () => {
    const redactor = new Redactor();
    redactor.learnFromText('{"user":"bob","client_secret":"s3cr3t-value-1","apiKey":"k3y-value-22"}');
    redactor.learnFromText('/path?access_token=q%2Btok-33333&x=1');
    assert.equal(redactor.text('{"client_secret": "s3cr3t-value-1", "n": 1}'), `{"client_secret": "${REDACTED}", "n": 1}`);
    assert.equal(redactor.text('?access_token=abcdef&x=1'), `?access_token=${REDACTED}&x=1`);
    for (const secret of ['s3cr3t-value-1', 'k3y-value-22', 'q+tok-33333']) {
      assert.equal(redactor.text(`echo ${Buffer.from(secret).toString('base64')}`), `echo ${REDACTED}`, secret);
      assert.equal(redactor.text(`echo ${secret} end`), `echo ${REDACTED} end`, secret);
    }
    assert.equal(redactor.text('{"tokenCount": 3, "name": "x"}'), '{"tokenCount": 3, "name": "x"}', 'numbers and other members stay');
  });

  it('keeps at most 256 secrets (the latest) and ignores very short ones', () => {
    const redactor = new Redactor();
    for (let i = 0; i < 300; i++) redactor.learn(`secret-number-${i}`);
    assert.equal(redactor.text('secret-number-299'), REDACTED);
    assert.equal(redactor.text('secret-number-0'), 'secret-number-0', 'the oldest secret was let go');
    redactor.learn('abc');
    assert.equal(redactor.text('abc'), 'abc');
  });

  it('escapes control characters so a log line cannot drive a terminal', () => {
    assert.equal(printable('a\u001b[31mb\u0007'), 'a\\u001b[31mb\\u0007');
  });
});
