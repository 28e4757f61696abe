/**
 * The proxy's reports use the suite's renderers and schema: after the usual flow against a faulty
 * reference server, `POST /__mock/report` writes a JSON report that validates against
 * `conformance.schema.json` and a JUnit file a CI consumer (test-results-parser) reads back with the
 * failed and passed checks; no form of the token is in either.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'test-results-parser';
import { reportProblems } from '../../report/schema.js';
import { CONTRACT_JSON_PATH, shownPath } from '../../contract/paths.js';
import type { Verdict } from '../../report/results.js';
import { REFERENCE_TOKEN, startReferenceServer } from '../../conformance/self-test/reference-server.js';
import { REPORT_FILES } from '../../mock/proxy/config.js';
import { startMock } from '../../mock/testing.js';
import { startProxy, usualFlow } from './support.js';

describe('validating proxy: reports', () => {
  it('POST /__mock/report writes the JSON report (valid against the suite schema) and JUnit read back by a CI consumer', async () => {
    const reference = await startReferenceServer(['order-number-changed']);
    const proxy = await startProxy(reference.url, 'strict');
    try {
      await usualFlow({ baseUrl: proxy.url, token: REFERENCE_TOKEN, badToken: 'invalid', orderNumber: 'ORD-2026-0001', lotId: 2001 });
      const answer = await fetch(`${proxy.url}/__mock/report`, { method: 'POST' });
      assert.equal(answer.status, 200);
      const { files, total } = (await answer.json()) as { files: string[]; total: number };
      assert.equal(total, 1);
      assert.deepEqual(files, [join(proxy.outputDir, REPORT_FILES.json), join(proxy.outputDir, REPORT_FILES.junit)]);
    } finally {
      await proxy.close();
      await reference.close();
    }
    const jsonText = readFileSync(join(proxy.outputDir, REPORT_FILES.json), 'utf8');
    const junitText = readFileSync(join(proxy.outputDir, REPORT_FILES.junit), 'utf8');
    const verdict = JSON.parse(jsonText) as Verdict;
    assert.deepEqual(reportProblems(verdict), []);
    assert.equal(verdict.outcome, 'failed');
    assert.deepEqual(verdict.contract, {
      path: shownPath(CONTRACT_JSON_PATH),
      sha256: createHash('sha256').update(readFileSync(CONTRACT_JSON_PATH)).digest('hex'),
    });
    assert.ok(junitText.includes(`<property name="contract.sha256" value="${verdict.contract.sha256}"/>`));
    const failed = verdict.checks.filter((c) => c.status === 'failed').map((c) => c.id);
    assert.deepEqual(failed, ['getOrderInfo.answer.exact-order']);
    assert.equal(verdict.checks.find((c) => c.id === 'createTestSample.answer.echo')?.status, 'passed');
    assert.equal(verdict.checks.find((c) => c.id === 'server.answer.unknown-route')?.status, 'skipped');

    const result = parse({ type: 'junit', files: [join(proxy.outputDir, REPORT_FILES.junit)] });
    const cases = result.suites.flatMap((s) => s.cases);
    assert.equal(cases.length, verdict.checks.length);
    const exact = cases.find((c) => c.name.startsWith('getOrderInfo.answer.exact-order'));
    assert.equal(exact?.status, 'FAIL');
    assert.match(exact?.failure ?? '', /order\/orderNumber/);
    assert.equal(cases.find((c) => c.name.startsWith('createLotTransfer.answer.schema'))?.status, 'PASS');
    for (const text of [jsonText, junitText]) {
      assert.ok(!text.includes(REFERENCE_TOKEN), 'no token');
      assert.ok(!text.includes(Buffer.from(REFERENCE_TOKEN).toString('base64')), 'no base64 token');
    }
  });

  it('an explicit --output is asked for: a stop writes the reports even after no exchange, and the log names them', async () => {
    const upstream = await startMock();
    const proxy = await startProxy(upstream.url, 'spec');
    await proxy.close();
    await upstream.close();
    const files = [join(proxy.outputDir, REPORT_FILES.json), join(proxy.outputDir, REPORT_FILES.junit)];
    assert.ok(proxy.lines.includes(`proxy: 0 violation(s) in 0 exchange(s); reports written: ${files.join(', ')}`), proxy.lines.join('\n'));
    const verdict = JSON.parse(readFileSync(files[0] ?? '', 'utf8')) as Verdict;
    assert.deepEqual(reportProblems(verdict), []);
    assert.equal(verdict.counts.skipped, verdict.counts.total, 'every check skipped: no exchange went through');
  });
});
