/** Credential positions: hidden whether known or not; a challenge, a rule text or a bare scheme never. */
import assert from 'node:assert/strict';
import {
  hideCredential,
  hiddenHeaderValue,
  hidePositions,
  isCredentialHeader,
  REDACTED,
  SECRET_MEMBER,
  SECRET_PARAMETER,
  SECRET_WORD,
} from './positions.js';

describe('redaction: credential positions', () => {
  it('hides the credential after Authorization (header line, JSON member, escaped JSON, parameter), keeping the scheme', () => {
    const cases: [string, string][] = [
      ['Authorization: Bearer never-seen-token', 'Authorization: Bearer <redacted>'],
      ['proxy-authorization: Basic dXNlcjpwYXNz', 'proxy-authorization: Basic <redacted>'],
      ['{"authorization":"Bearer abc.def","n":1}', '{"authorization":"Bearer <redacted>","n":1}'],
      ['{\\"authorization\\": \\"Bearer abc\\"}', '{\\"authorization\\": \\"Bearer <redacted>\\"}'],
      ["{ authorization: 'Bearer x1' }", "{ authorization: 'Bearer <redacted>' }"],
      ['?authorization=raw-token-1&x=1', '?authorization=<redacted>&x=1'],
      ['{"authorization":"t","note":"the test"}', '{"authorization":"<redacted>","note":"the test"}'],
      ['AUTHORIZATION: Bearer "quoted token"', 'AUTHORIZATION: Bearer <redacted>'],
      ['Authorization: Custom c-123', 'Authorization: Custom <redacted>'],
      ['Authorization: Bearer tok, more text', 'Authorization: Bearer <redacted>, more text'],
      ['{ authorization: raw-1 }', '{ authorization: <redacted> }'],
      ['Cookie: sid=abc; theme=dark\nnext line', 'Cookie: <redacted>\nnext line'],
      ['"set-cookie":"sid=abc; Path=/"', '"set-cookie":"<redacted>"'],
      ['{"access_token":"x","password":"p"}', '{"access_token":"<redacted>","password":"<redacted>"}'],
      ['/cb?access_token=abc&state=1', '/cb?access_token=<redacted>&state=1'],
    ];
    for (const [text, expected] of cases) {
      assert.equal(hidePositions(text), expected, text);
      assert.equal(hidePositions(expected), expected, `hidden once: ${expected}`);
    }
  });

  it('leaves a challenge, a bare scheme, documentation and the word Bearer in prose as they are', () => {
    const kept = [
      'WWW-Authenticate: Bearer realm="goods-mock"',
      'www-authenticate: Bearer realm="goods-mock", error="invalid_token"',
      '{"www-authenticate":"Bearer realm=\\"goods-mock\\""}',
      'Authorization: Bearer',
      'send "Authorization: Bearer <token>".',
      'needs "Authorization: Bearer <admin token>" (the --admin-token of this mock).',
      'echo: Bearer never-seen-token',
      // The proxy's own violation lines name the header, then the reason.
      'header authorization: no Authorization header',
      'header authorization: the Authorization scheme is not Bearer (GET /x → 401)',
      'authorization: the bearer token is not an RFC 6750 b64token',
      'Cookie: the session one',
      'every operation requires bearer auth',
      'a request without an Authorization header, with a non-Bearer scheme',
      'the Authorization scheme must be "Bearer", not "Basic"',
      '{"tokenCount": 3, "error": "invalid_token"}',
    ];
    for (const text of kept) assert.equal(hidePositions(text), text);
    // The project's own texts: test/proxy/redaction.test.ts (redaction/ imports nothing of the project).
  });

  it('credential headers: Authorization-like keep their scheme, the others are hidden whole; other headers are none', () => {
    assert.equal(hideCredential('Bearer abc'), `Bearer ${REDACTED}`);
    assert.equal(hideCredential('abc'), REDACTED);
    assert.equal(hiddenHeaderValue('Proxy-Authorization', 'Basic x'), 'Basic <redacted>');
    assert.equal(hiddenHeaderValue('cookie', 'a=b'), '<redacted>');
    assert.equal(hiddenHeaderValue('www-authenticate', 'Bearer realm="x"'), undefined);
    assert.ok(isCredentialHeader('Set-Cookie') && isCredentialHeader('x-api-key') && !isCredentialHeader('x-request-id'));
  });
  it('every text with a credential-named member or parameter holds a credential word (the scan before them skips no credential)', () => {
    const member = new RegExp(SECRET_MEMBER.source, 'i');
    const parameter = new RegExp(SECRET_PARAMETER.source, 'i');
    // Each kind of name the patterns know, with a prefix and in other letter cases.
    const names = ['token', 'password', 'passwd', 'secret', 'apikey', 'api-key', 'api_key', 'accesskey', 'access-key', 'access_key'];
    for (const name of [...names, 'client_secret', 'clientSecret', 'refresh_token']) {
      for (const form of [name, name.toUpperCase(), `x_${name}`, `My${name[0]?.toUpperCase() ?? ''}${name.slice(1)}`]) {
        const json = `{"${form}":"v"}`;
        const query = `/p?${form}=v`;
        assert.ok(member.test(json) && parameter.test(query), form);
        assert.ok(SECRET_WORD.test(json) && SECRET_WORD.test(query), form);
      }
    }
    // Seeded texts of pieces of those names: whenever a pattern finds a credential, the word is there.
    const pieces = [
      '"',
      ':',
      '=',
      '?',
      '&',
      ' ',
      'to',
      'ken',
      'tok',
      'en',
      'pass',
      'wd',
      'word',
      'api',
      'acc',
      'ess',
      '-',
      '_',
      'k',
      'ey',
      'key',
      'se',
      'cret',
      'Sec',
      'x',
      'v',
    ];
    let seed = 7;
    const next = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    let found = 0;
    for (let i = 0; i < 20_000; i++) {
      let text = '';
      for (let j = 1 + next(24); j > 0; j--) text += pieces[next(pieces.length)] ?? '';
      if (!member.test(text) && !parameter.test(text)) continue;
      found++;
      assert.ok(SECRET_WORD.test(text), text);
    }
    assert.ok(found > 100, `${found} seeded texts hold a credential`);
  });
});
