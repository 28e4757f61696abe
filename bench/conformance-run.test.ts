/** What the bench reads of a strict run's conformance.json (no run here: the reading only). */
import assert from 'node:assert/strict';
import { readRunReport } from './conformance-run.js';

const report = (over: Record<string, unknown> = {}): string =>
  JSON.stringify({
    tool: 'goods-conformance',
    durationMs: 420,
    counts: { total: 75, passed: 75, failed: 0, skipped: 0, notRun: 0, cases: 446 },
    requests: 312,
    ...over,
  });

describe('bench/conformance-run: readRunReport', () => {
  it('reads the checks, cases, requests sent and the suite’s own duration', () => {
    assert.deepEqual(readRunReport(report()), { checks: 75, cases: 446, requests: 312, durationMs: 420 });
  });

  it('a report without requests (a suite from before the count) gives null requests', () => {
    assert.deepEqual(readRunReport(report({ requests: undefined })), { checks: 75, cases: 446, requests: null, durationMs: 420 });
  });

  it('says why a report cannot be read', () => {
    const reason = (text: string): string => {
      const read = readRunReport(text);
      assert.equal(typeof read, 'string', JSON.stringify(read));
      return typeof read === 'string' ? read : '';
    };
    assert.match(reason('{'), /^conformance\.json is not JSON: /);
    assert.equal(reason('[]'), 'conformance.json has no counts');
    assert.equal(reason(report({ counts: undefined })), 'conformance.json has no counts');
    assert.match(reason(report({ counts: { total: -1, cases: 2 } })), /not a count/);
    assert.match(reason(report({ requests: 1.5 })), /requests is not a count/);
    assert.match(reason(report({ durationMs: 'soon' })), /durationMs is not a number/);
  });
});
