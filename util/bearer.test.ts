import assert from 'node:assert/strict';
import { BEARER_CREDENTIALS, isB64Token } from './bearer.js';

describe('util/bearer (RFC 6750 §2.1)', () => {
  it('accepts b64tokens and nothing else', () => {
    for (const token of ['abc', 'a-b.c_d~e+f/g', 'abc==', 'A1']) assert.equal(isB64Token(token), true, token);
    for (const token of ['', 'a b', '=abc', 'ab=c', 'tok\u00e9n', 'a,b']) assert.equal(isB64Token(token), false, token);
  });

  it('reads the token out of bearer credentials, the scheme in any case, one or more spaces', () => {
    assert.equal(BEARER_CREDENTIALS.exec('Bearer abc')?.[1], 'abc');
    assert.equal(BEARER_CREDENTIALS.exec('bEaReR   abc=')?.[1], 'abc=');
    for (const header of ['Bearer', 'Bearer ', 'Basic abc', 'Bearer a b', 'Bearerabc'])
      assert.equal(BEARER_CREDENTIALS.exec(header), null, header);
  });
});
