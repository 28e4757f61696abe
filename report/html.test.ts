/** The HTML report: failures first, then not run, skipped, passed; escaped; self-contained; the coverage table. */
import assert from 'node:assert/strict';
import { formatFailure, type FailureDetails } from './failure.js';
import { escapeHtml, renderHtml } from './html.js';
import type { CheckResult } from './results.js';
import { CHECKS, CONTRACT, HOSTILE_TEXT, configurationVerdictOf, rawControls, verdictOf } from './verdict-fixture.js';

describe('HTML report (conformance.html)', () => {
  const html = renderHtml(verdictOf());

  it('shows the failures first, then the checks not run, skipped, passed', () => {
    const at = (id: string): number => html.indexOf(`<code>${id}</code>`);
    const order = ['failed', 'not-run', 'skipped', 'passed'].map((s) => html.indexOf(`<h2 id="${s}">`));
    assert.ok(order.every((i) => i > 0));
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      order,
    );
    for (const check of CHECKS) {
      const section = { failed: 0, 'not-run': 1, skipped: 2, passed: 3 }[check.status];
      const position = at(check.id);
      assert.ok(position > (order[section] ?? Infinity), check.id);
      const next = order[section + 1];
      if (next !== undefined) assert.ok(position < next, check.id);
    }
    assert.match(html, /<h1 class="failed">goods conformance: FAILED<\/h1>/);
    assert.match(html, /not run: blocked by --max-writes 3 \(spent\)/);
  });

  it('every failed case is shown by name with its whole failure and reproduction, after the count', () => {
    const exact = CHECKS.find((c) => c.id === 'getOrderInfo.exact-order');
    const [main, space] = exact?.cases ?? [];
    assert.ok(
      html.includes(
        `<p class="count">2 of 3 case(s) failed</p><div class="failure"><p class="fc"><code>getOrderInfo.exact-order</code> · case <q>main order</q></p><pre>${escapeHtml(main?.message ?? '')}</pre></div><div class="failure"><p class="fc"><code>getOrderInfo.exact-order</code> · case <q>order with a space</q></p><pre>${escapeHtml(space?.message ?? '')}</pre></div>`,
      ),
    );
    assert.ok(html.includes(`reproduce:\n  curl -sS -i \\\n    -H &#39;accept: application/json&#39;`), 'the curl of the failure');
    assert.match(html, /<li class="failed">failed: order with a space<\/li>/, 'the case list does not repeat the text');
    assert.ok(
      html.includes(
        '<p class="fc"><code>createTestSample.auth-missing-no-2xx</code> · case <q>no header</q></p><pre>the check could not complete: ',
      ),
      'a case without a text of its own: the check message',
    );
  });

  it("a real run's failures (each case's text is its whole failure): one block per distinct text, naming the check and its cases", () => {
    const served: FailureDetails = {
      rule: 'Profile: an unknown lot is 422',
      expected: 'status 422',
      actual: 'the answer is 500',
      request: {
        method: 'POST',
        path: '/lot-transfers/create',
        headers: { authorization: 'Bearer <redacted>' },
        body: '{"fk_lot_id":999}',
      },
      status: 500,
      answer: 'Internal Server Error',
    };
    const other: FailureDetails = { ...served, actual: 'the answer is 200', status: 200, answer: '{}' };
    const check: CheckResult = {
      id: 'createLotTransfer.unknown-lot-422',
      level: 'strict',
      operation: 'createLotTransfer',
      operations: ['createLotTransfer'],
      title: 'an unknown lot is refused with 422',
      rule: served.rule,
      status: 'failed',
      message: `3 of 4 case(s) failed; first: lot 999\n${formatFailure(served)}`,
      failure: served,
      failures: [served, served, other],
      cases: [
        { name: 'lot 999', status: 'failed', message: formatFailure(served) },
        { name: 'lot 0', status: 'passed' },
        { name: 'lot -1', status: 'failed', message: formatFailure(served) },
        { name: 'lot 2^53', status: 'failed', message: formatFailure(other) },
      ],
      durationMs: 5,
    };
    const page = renderHtml(verdictOf([check]));
    const blocks = [...page.matchAll(/<div class="failure"><p class="fc">(.*?)<\/p><pre>([^<]*)<\/pre><\/div>/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(blocks, [
      ['<code>createLotTransfer.unknown-lot-422</code> · 2 cases <q>lot 999</q>, <q>lot -1</q>', escapeHtml(formatFailure(served))],
      ['<code>createLotTransfer.unknown-lot-422</code> · case <q>lot 2^53</q>', escapeHtml(formatFailure(other))],
    ]);
    assert.equal(page.split('the answer is 500').length - 1, 1, 'the identical text is shown once');
    assert.equal(page.split('the answer is 200').length - 1, 1);
  });

  it('a check with many distinct failures: the count, three open, the others folded under a summary naming them', () => {
    const first: FailureDetails = { rule: 'r', expected: 'e', actual: 'case a wrong' };
    const failures: FailureDetails[] = [first, ...['b', 'c', 'd', 'e'].map((n) => ({ ...first, actual: `case ${n} wrong` }))];
    const check: CheckResult = {
      id: 'createLotTransfer.wrong-type-400',
      level: 'strict',
      operation: 'createLotTransfer',
      operations: ['createLotTransfer'],
      title: 'wrong types are refused',
      rule: 'r',
      status: 'failed',
      message: 'five failed',
      failure: first,
      failures,
      cases: failures.map((f, i) => ({ name: `case ${i}`, status: 'failed' as const, message: formatFailure(f) })),
      durationMs: 1,
    };
    const page = renderHtml(verdictOf([check]));
    assert.ok(page.includes('<p class="count">5 of 5 case(s) failed</p>'));
    const folded = page.indexOf('<details class="more"><summary>… and 2 more failed: case 3; case 4 (every failed case');
    assert.ok(folded > 0, 'the others are folded');
    for (const n of ['a', 'b', 'c']) assert.ok(page.indexOf(`case ${n} wrong`) < folded, n);
    for (const n of ['d', 'e']) assert.ok(page.indexOf(`case ${n} wrong`) > folded, n);
  });

  it('has the coverage table: rule → cases sent → verdict', () => {
    const table = html.slice(html.indexOf('<h2 id="coverage">'));
    assert.match(table, /<th>rule<\/th><th>level<\/th><th>checks<\/th><th>cases sent<\/th><th>verdict<\/th>/);
    assert.match(
      table,
      /Spec fact 3: `order\.orderNumber` equals the requested number<\/td><td>spec<\/td><td><code>getOrderInfo\.exact-order<\/code><\/td><td class="n">3<\/td><td class="v">FAILED<\/td>/,
    );
    assert.equal((table.match(/<tr class=/g) ?? []).length, CHECKS.length);
  });

  it('hints, rules not checked and rules left out by --read-only are listed', () => {
    assert.match(html, /<b>hint:<\/b> the main order answered 404: check --order-number/);
    assert.match(html, /<h2>Not checked<\/h2><ul class="rules"><li>\[spec\] Spec fact 5: creates echo what was sent/);
    assert.match(html, /<h2>Left out by --read-only<\/h2>/);
  });

  it('names the contract judged against: its path and the whole SHA-256', () => {
    assert.ok(
      html.includes(`contract <code class="contract">${CONTRACT.path}</code> (sha256 <code class="sha256">${CONTRACT.sha256}</code>)`),
    );
    const hostile = renderHtml(verdictOf(CHECKS, { contract: { path: '<b>api</b>.yaml', sha256: CONTRACT.sha256 } }));
    assert.ok(hostile.includes('<code class="contract">&lt;b&gt;api&lt;/b&gt;.yaml</code>'));
  });

  it('escapes every text (markup, control characters) and is self-contained', () => {
    assert.ok(!html.includes('<script'));
    assert.ok(html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
    assert.deepEqual(rawControls(html), []);
    assert.ok(html.includes('\\x1b[32mPASSED'));
    assert.doesNotMatch(html, /\b(?:src|href)=|@import|url\(/);
    assert.ok(HOSTILE_TEXT.includes('<script>'));
  });

  it('says PASSED only for exit 0 and INCOMPLETE for exit 3', () => {
    const passed = renderHtml(verdictOf(CHECKS.filter((c) => c.status === 'passed')));
    assert.match(passed, /<h1 class="passed">goods conformance: PASSED<\/h1>/);
    const incomplete = renderHtml(verdictOf(CHECKS.filter((c) => c.status !== 'failed')));
    assert.match(incomplete, /<h1 class="incomplete">goods conformance: INCOMPLETE<\/h1>/);
    assert.match(incomplete, /exit code <b>3<\/b>/);
  });

  it('says CONFIGURATION ERROR for exit 2, with the line naming the option, and still lists every check', () => {
    const configuration = renderHtml(configurationVerdictOf());
    assert.match(configuration, /<h1 class="configuration">goods conformance: CONFIGURATION ERROR<\/h1>/);
    assert.match(configuration, /exit code <b>2<\/b>/);
    assert.ok(
      configuration.includes(
        '<p class="configuration"><b>configuration error:</b> the main order &quot;ORD-2026-0001&quot; was answered 404 (not found); pass --order-number with an existing order with lots on this server</p>',
      ),
    );
    for (const check of CHECKS) assert.ok(configuration.includes(`<code>${check.id}</code>`), check.id);
  });
});
