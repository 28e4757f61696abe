import assert from 'node:assert/strict';
import { isoNow } from './clock.js';

describe('isoNow', () => {
  it('is the current time as an ISO 8601 UTC text, the same as new Date().toISOString() within the same millisecond', () => {
    for (let i = 0; i < 1000; i++) {
      const before = Date.now();
      const text = isoNow();
      const after = Date.now();
      assert.match(text, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const at = Date.parse(text);
      assert.ok(at >= before && at <= after, `${text} is not between ${before} and ${after}`);
    }
  });

  it('moves on when the clock does', async () => {
    const first = isoNow();
    const start = Date.now();
    while (Date.now() === start) await new Promise((resolve) => setImmediate(resolve));
    assert.ok(Date.parse(isoNow()) > Date.parse(first));
  });
});
