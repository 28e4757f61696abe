/** What the bench reads of a strict run's conformance.json and of the self-test's output (no run here: the reading only). */
import assert from 'node:assert/strict';
import { killRate, parseSelfTestOutput, readRunReport } from './conformance-run.js';

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

/** What `goods-conformance --self-test` printed for the bundled contract. */
const ALL_KILLED = `goods conformance self-test against contract/generated/openapi.json (sha256 d862c2fbb5bc)
  reference server at spec: passes every check
  reference server at strict: passes every check
  createLotTransfer: killed 82/82 faults (100.0%)
  createTestSample: killed 74/74 faults (100.0%)
  getOrderInfo: killed 78/78 faults (100.0%)
  server: killed 3/3 faults (100.0%)
killed 237/237 faults (100.0%) in 15.2 s
`;

const SURVIVORS = `goods conformance self-test against edited.yaml (sha256 0123456789ab)
  reference server at spec: passes every check
  reference server at strict: FAILS (getOrderInfo.status-200, server.no-5xx)
  createLotTransfer: killed 81/82 faults (98.8%)
  getOrderInfo: killed 78/78 faults (100.0%)
killed 159/160 faults (99.4%) in 9 s
  survived: createLotTransfer accepts a body breaking minimum at /amount [ignore|createLotTransfer|/amount|minimum] at strict
`;

describe('bench/conformance-run: parseSelfTestOutput', () => {
  it('reads the total line (not a per-operation line): killed, total and the seconds it printed', () => {
    assert.deepEqual(parseSelfTestOutput(ALL_KILLED), { killed: 237, total: 237, seconds: 15.2, survivors: [], referenceFailures: [] });
  });

  it('names the survivors and the levels at which the reference server failed', () => {
    assert.deepEqual(parseSelfTestOutput(SURVIVORS), {
      killed: 159,
      total: 160,
      seconds: 9,
      survivors: ['createLotTransfer accepts a body breaking minimum at /amount [ignore|createLotTransfer|/amount|minimum] at strict'],
      referenceFailures: ['reference server at strict: FAILS (getOrderInfo.status-200, server.no-5xx)'],
    });
  });

  it('answers undefined without a total line (a crash, a usage error, only per-operation lines)', () => {
    assert.equal(parseSelfTestOutput(''), undefined);
    assert.equal(parseSelfTestOutput('goods-conformance: the run could not start: boom\n'), undefined);
    assert.equal(parseSelfTestOutput('  getOrderInfo: killed 78/78 faults (100.0%)\n'), undefined);
    assert.equal(parseSelfTestOutput('killed 237/237 faults (100.0%)\n'), undefined, 'no duration');
  });

  it('killRate: K/N faults (P%) with one decimal, as the self-test prints it', () => {
    assert.equal(killRate({ killed: 237, total: 237 }), '237/237 faults (100.0%)');
    assert.equal(killRate({ killed: 2, total: 3 }), '2/3 faults (66.7%)');
    assert.equal(killRate({ killed: 0, total: 0 }), '0/0 faults (—)');
  });
});
