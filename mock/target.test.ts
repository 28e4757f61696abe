/** Request targets: origin- and absolute-form, and the target the proxy rebuilds (dot segments removed, never above its root). */
import assert from 'node:assert/strict';
import { ProblemError } from './problems.js';
import { parseTarget, proxiedTarget } from './target.js';

const rebuilt = (url: string): string => proxiedTarget(parseTarget(url));

describe('mock/target', () => {
  it('splits origin-form and absolute-form targets (scheme and authority kept apart)', () => {
    assert.deepEqual(parseTarget('/a/b?x=1'), { pathname: '/a/b', search: '?x=1' });
    assert.deepEqual(parseTarget('HTTP://127.0.0.1:4010/a?x'), {
      pathname: '/a',
      search: '?x',
      authority: '127.0.0.1:4010',
      scheme: 'http',
    });
    assert.deepEqual(parseTarget('http://h'), { pathname: '/', search: '', authority: 'h', scheme: 'http' });
    assert.throws(() => parseTarget('*'), ProblemError);
    assert.throws(() => parseTarget('127.0.0.2:9999'), ProblemError);
  });

  it('rebuilds the proxied target: dot segments removed (also percent-encoded, either case), other segments and the query as sent', () => {
    for (const [sent, forwarded] of [
      ['/manualProduction/rest/v1/orders/info/WE%202026-0003?x=1', '/manualProduction/rest/v1/orders/info/WE%202026-0003?x=1'],
      ['/a/./b/../c', '/a/c'],
      ['/a/%2e/b/%2E%2e/c', '/a/c'],
      ['/a/.%2e/b', '/b'],
      ['/a/b/..', '/a/'],
      ['/a/.', '/a/'],
      ['/a//b', '/a//b'],
      ['/', '/'],
      ['/a/%2e%2e-not-a-dot-segment/..x', '/a/%2e%2e-not-a-dot-segment/..x'],
      ['/a/b?q=/../../x', '/a/b?q=/../../x'],
      ['/a/b#fragment', '/a/b'],
      ['/a/b#fragment?not-a-query', '/a/b'],
      ['/a/b?x=1#fragment', '/a/b?x=1'],
      ['/a%2Fb/..', '/'],
      ['/a/..;x', '/a/..;x'],
      ['http://127.0.0.1:4010/a/../b?y', '/b?y'],
      // Paths without `.`, `\`, `#`, `%2e`, `%2f`, `%5c` are kept as sent (the short way); the query's fragment still goes.
      ['/a/WE%202026-0003/%41;p=1', '/a/WE%202026-0003/%41;p=1'],
      ['/a/b?x=1#y?z', '/a/b?x=1'],
      ['/a/%5Cb', '/a/%5Cb'],
    ] as const) {
      assert.equal(rebuilt(sent), forwarded, sent);
    }
  });

  it('refuses a path that leaves its root (the --proxy URL path), also as a lenient upstream would read it', () => {
    for (const sent of [
      '/..',
      '/../admin',
      '/a/../../admin',
      '/%2e%2e/admin',
      '/%2E%2E/admin',
      '/.%2e/admin',
      '/%2e./admin',
      '/a/%2e%2e/%2e%2e/admin',
      '/manualProduction/rest/../../../admin',
      '/a/..%2f..%2fadmin',
      '/a/..%2F..%2Fadmin',
      '/a/..%5c..%5cadmin',
      '/a\\..\\..\\admin',
      '/a/..;/../admin',
      '/..;jsessionid=x/admin',
      'http://127.0.0.1:4010/../admin',
    ]) {
      assert.throws(
        () => rebuilt(sent),
        (error: unknown) => error instanceof ProblemError && error.kind.status === 400 && /leaves the root/.test(error.detail),
        sent,
      );
    }
  });

  it('refuses a dot or a separator hidden from one decoding: double percent-encoding and overlong UTF-8, wherever the path points', () => {
    for (const sent of [
      '/api/a/%252e%252e/%252e%252e/x',
      '/api/%252E%252E/x',
      '/api/%25252e%25252e/x',
      '/api/..%252f../x',
      '/api/..%255c../x',
      '/api/..%c0%af../x',
      '/api/..%C0%AE/x',
      '/api/%c0%ae%c0%ae/x',
      '/api/..%c1%9c../x',
      '/api/..%e0%80%af../x',
      '/api/..%f0%80%80%af../x',
      '/api/%25c0%25af/x',
      'http://127.0.0.1:4010/api/%252e%252e/x',
    ]) {
      assert.throws(
        () => rebuilt(sent),
        (error: unknown) =>
          error instanceof ProblemError &&
          error.kind.status === 400 &&
          error.kind.type.endsWith('/invalid-path') &&
          /hides a dot or a separator from one decoding/.test(error.detail),
        sent,
      );
    }
    // A percent sign, a valid multi-byte character, or a lone high byte stay as sent.
    for (const sent of ['/a/100%25/b', '/a/%25zz', '/a/%C3%A4', '/a/%e2%82%ac', '/a/%ff']) assert.equal(rebuilt(sent), sent, sent);
  });
});
