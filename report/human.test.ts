/** The human report: live lines and the summary (PASSED only for exit 0, FAILED, INCOMPLETE), control characters escaped. */
import assert from 'node:assert/strict';
import { renderCheckLine, renderHeader, renderSummary } from './human.js';
import { CHECKS, CONTRACT, configurationVerdictOf, rawControls, verdictOf } from './verdict-fixture.js';

const ESC = '\u001b';

describe('human report', () => {
  it('one line per check with its verdict; failures with details, skips and checks not run with why', () => {
    const lines = CHECKS.map((c) => renderCheckLine(c, false));
    assert.match(
      lines[0] ?? '',
      /^ {2}FAIL {2}\[spec\] {3}getOrderInfo\.exact-order {2}the answer describes the requested order\n {8}the answer's/,
    );
    assert.match(lines[1] ?? '', /^ {2}PASS {2}\[strict\] getOrderInfo\.status-200/);
    assert.match(
      lines[2] ?? '',
      /^ {2}NRUN {2}\[spec\] {3}createLotTransfer\.echo-members .*\n {8}not run: blocked by --max-writes 3 \(spent\) \(the write budget was spent\)\n$/,
    );
    assert.match(lines[3] ?? '', /SKIP .*\n {8}skipped: --read-only: the check sends POST requests\n$/);
  });

  it('an answer cannot reach the terminal raw: ESC, CR, BEL shown escaped; only the tool colors its labels', () => {
    const hostile = CHECKS[4];
    assert.ok(hostile);
    const plain = renderCheckLine(hostile, false);
    assert.deepEqual(rawControls(plain), [], plain);
    assert.match(plain, /\\x1b\[32mPASSED\\x1b\[0m\\x0d\\x07/);
    const colored = renderCheckLine(hostile, true);
    // The tool's own sequences: label on/off, title dim on/off.
    assert.equal(colored.split(ESC).length - 1, 4);
    assert.ok(colored.startsWith(`  ${ESC}[31mFAIL${ESC}[0m`));
  });

  it('what the traffic took, never counted against the server: time-out retries, waits asked for, requests sent again', () => {
    const quiet = renderSummary(
      verdictOf(CHECKS, { traffic: { connections: 9, resent: 0, timeoutRetries: 0, answeredOnRetry: 0, waits: 0, pausedMs: 0 } }),
      {
        color: false,
      },
    );
    assert.doesNotMatch(quiet, /time-outs:|rate limit:|connections:/, 'nothing said when nothing happened');
    const busy = renderSummary(
      verdictOf(CHECKS, { traffic: { connections: 12, resent: 2, timeoutRetries: 3, answeredOnRetry: 2, waits: 7, pausedMs: 4250 } }),
      { color: false },
    );
    assert.match(
      busy,
      /\ntime-outs: 3 request\(s\) timed out and were sent again once with the limit doubled: 2 answered on the retry \(judged by their answer\), 1 timed out again \(counted as time-outs\)\n/,
    );
    assert.match(
      busy,
      /\nrate limit: the server asked the run to wait 7 time\(s\) \(429, or 503 with Retry-After\); the run paused 4\.3 s in all and sent those requests again, none counted against the server\n/,
    );
    assert.match(
      busy,
      /\nconnections: 2 request\(s\) sent again on a new connection after the server had closed a kept-alive one \(not counted against the server; 12 connection\(s\) in all\)\n/,
    );
  });

  it('FAILED for exit 1, with the failed checks, the rules not checked and the hints', () => {
    const text = renderSummary(verdictOf(), { color: false, files: ['reports/junit.xml'] });
    assert.match(
      text,
      /^\nFAILED: 2 passed, 2 failed, 1 skipped, 1 not run of 6 checks \(7 cases, 12 requests, level strict\) in 4321 ms\n/,
    );
    assert.match(text, /failed:\n {2}- getOrderInfo\.exact-order: the answer describes the requested order \(2 of 3 case\(s\) failed\)\n/);
    assert.match(
      text,
      /also not checked:\n {2}- \[spec\] Spec fact 5: creates echo what was sent \(--max-writes spent; createLotTransfer\.echo-members\)\n/,
    );
    assert.match(text, /hint: the main order answered 404: check --order-number\n/);
    assert.match(
      text,
      /exit code 1\ncontract contract\/generated\/openapi\.json \(sha256 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b\)\nseed 42 \(--seed 42 sends the same requests\)\nrun marker CONF-20261122T030000-ABCD: 3 valid create request/,
    );
    assert.match(text, /report: reports\/junit\.xml\n$/);
    assert.doesNotMatch(text, /^PASSED/m);
  });

  it('CONFIGURATION ERROR for exit 2: the counts, the line naming the option, the checks that failed (saying nothing about the contract)', () => {
    const text = renderSummary(configurationVerdictOf(), { color: false });
    assert.match(
      text,
      /^\nCONFIGURATION ERROR: 2 passed, 2 failed, 1 skipped, 1 not run of 6 checks \(7 cases, 12 requests, level strict\) in 4321 ms\nconfiguration error: the main order "ORD-2026-0001" was answered 404 \(not found\); pass --order-number with an existing order with lots on this server\nfailed \(after the configuration error: says nothing about the contract\):\n {2}- getOrderInfo\.exact-order/,
    );
    assert.match(text, /\nexit code 2\n/);
    assert.doesNotMatch(text, /^(PASSED|FAILED)/m);
    const colored = renderSummary(configurationVerdictOf(), { color: true });
    assert.ok(colored.startsWith(`\n${ESC}[31mCONFIGURATION ERROR${ESC}[0m: `));
  });

  it('INCOMPLETE for exit 3: names the rules left unchecked; --read-only leaves are listed apart', () => {
    const text = renderSummary(verdictOf(CHECKS.filter((c) => c.status !== 'failed')), { color: false });
    assert.match(text, /^\nINCOMPLETE: 2 passed, 0 failed, 1 skipped, 1 not run of 4 checks/);
    assert.match(text, /nothing failed, but these rules were not checked:\n {2}- \[spec\] Spec fact 5: creates echo what was sent/);
    assert.match(
      text,
      /left out by --read-only \(your choice; not checked\):\n {2}- \[strict\] Profile: create success is 201 \(--read-only; createTestSample\.status-201\)/,
    );
    assert.match(text, /exit code 3\n/);
  });

  it('PASSED only for exit 0 (a read-only run lists what it left out)', () => {
    const readOnly = CHECKS.filter((c) => c.status === 'passed' || c.reason === 'read-only');
    const text = renderSummary(verdictOf(readOnly), { color: true });
    assert.ok(text.startsWith(`\n${ESC}[32mPASSED${ESC}[0m: 2 passed, 0 failed, 1 skipped, 0 not run of 3 checks`));
    assert.match(text, /left out by --read-only/);
    assert.match(text, /exit code 0\n/);
    // A verdict that says passed while a check failed is shown as FAILED.
    const inconsistent = verdictOf(CHECKS, { outcome: 'passed', exitCode: 0, passed: true });
    assert.match(renderSummary(inconsistent, { color: false }), /^\nFAILED/);
  });

  it('the summary line states the requests sent; a verdict without the number (the proxy) leaves it out', () => {
    assert.match(
      renderSummary(verdictOf(CHECKS, { requests: 0 }), { color: false }),
      /^\nFAILED: .* \(7 cases, 0 requests, level strict\) in /,
    );
    const proxy = verdictOf();
    delete proxy.requests;
    const text = renderSummary(proxy, { color: false });
    assert.match(text, /^\nFAILED: .* \(7 cases, level strict\) in 4321 ms\n/);
    assert.doesNotMatch(text, /requests,/);
  });

  it('the first line names level, checks, target, the contract (path, first 12 hex digits of its SHA-256), seed, time limits and concurrency', () => {
    const base = { level: 'strict', checks: 40, target: 'http://127.0.0.1:4010', contract: CONTRACT, seed: 9, timeoutMs: 5000 } as const;
    assert.equal(
      renderHeader({ ...base, inProcess: true }),
      'goods conformance: level strict, 40 checks against http://127.0.0.1:4010 (in-process mock), contract contract/generated/openapi.json (sha256 1a2b3c4d5e6f…), seed 9, --timeout 5000 ms per request\n',
    );
    assert.equal(
      renderHeader({
        ...base,
        inProcess: false,
        deadlineMs: 60_000,
        concurrency: 8,
        contract: { path: '(in memory)', sha256: CONTRACT.sha256 },
      }),
      'goods conformance: level strict, 40 checks against http://127.0.0.1:4010, contract (in memory) (sha256 1a2b3c4d5e6f…), seed 9, --timeout 5000 ms per request, --deadline 60000 ms, --concurrency 8\n',
    );
    assert.equal(
      renderHeader({ ...base, target: 'https://api.example', inProcess: false, caPath: 'certs/company-ca.pem' }),
      'goods conformance: level strict, 40 checks against https://api.example, contract contract/generated/openapi.json (sha256 1a2b3c4d5e6f…), seed 9, --timeout 5000 ms per request, trusting the CA certificates of --ca certs/company-ca.pem too\n',
    );
  });

  it('a contract path cannot reach the terminal raw (a file name may hold control characters)', () => {
    const contract = { path: `api/\u001b[32mok\u0007.yaml`, sha256: CONTRACT.sha256 };
    const header = renderHeader({ level: 'spec', checks: 1, target: 'http://h', inProcess: false, contract, seed: 1, timeoutMs: 1 });
    const summary = renderSummary(verdictOf(CHECKS, { contract }), { color: false });
    for (const text of [header, summary]) {
      assert.deepEqual(rawControls(text), [], text);
      assert.ok(text.includes('api/\\x1b[32mok\\x07.yaml'), text);
    }
  });

  it('counts the valid creates and the POST requests answered 2xx apart: a server accepting invalid bodies is no contradiction', () => {
    const lenient = { ...verdictOf(), writes: 3, recordsCreated: 11 };
    assert.match(
      renderSummary(lenient, { color: false }),
      /: 3 valid create request\(s\) sent \(counted against --max-writes\); 11 POST request\(s\) answered 2xx, each a record the server says it created \(bodies it should refuse included\);/,
    );
  });
});
