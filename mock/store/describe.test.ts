/** The store in words (the banner, the Redis store's messages): each store named, a Redis password never shown. */
import assert from 'node:assert/strict';
import { describeStore, displayUrl } from './describe.js';

describe('mock/store/describe: the store in words', () => {
  it('names memory, the journal with its file, and Redis with its URL and key prefix', () => {
    assert.equal(describeStore({ storePrefix: 'goods-mock' }), 'memory (lost when the mock stops; --state-file FILE keeps it)');
    assert.match(describeStore({ storePrefix: 'goods-mock', stateFile: '.state/mock.jsonl' }), /^journal \.state\/mock\.jsonl \(/);
    assert.equal(
      describeStore({ storePrefix: 'team-a', store: 'redis://127.0.0.1:6379/0' }),
      'Redis redis://127.0.0.1:6379/0, key prefix team-a',
    );
  });

  it('never shows a password or user of the Redis URL, in any of its forms', () => {
    for (const [url, shown] of [
      ['redis://:s3cret-password@127.0.0.1:6379/0', 'redis://<redacted>@127.0.0.1:6379/0'],
      ['redis://alice:s3cret-password@redis.internal:6380/2', 'redis://<redacted>@redis.internal:6380/2'],
      ['rediss://:p%40ss%2Fword-long@cache.example:6379', 'rediss://<redacted>@cache.example:6379'],
      ['redis://:x@127.0.0.1:6379/0', 'redis://<redacted>@127.0.0.1:6379/0'],
      ['redis://127.0.0.1:6379/0', 'redis://127.0.0.1:6379/0'],
    ] as const) {
      assert.equal(displayUrl(url), shown, url);
      const banner = describeStore({ storePrefix: 'p', store: url });
      for (const secret of ['s3cret-password', 'alice', 'p%40ss%2Fword-long', 'p@ss/word-long', ':x@']) {
        assert.ok(!banner.includes(secret), `${url}: ${banner}`);
      }
    }
    assert.equal(displayUrl('not a url'), 'redis://(unparsable URL)');
  });
});
