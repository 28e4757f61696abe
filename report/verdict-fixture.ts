/**
 * Verdicts for the renderers' tests: every status, several operations, failures with several cases,
 * and hostile text (markup, XML specials, `]]>`, control characters, characters invalid in XML 1.0).
 */
import { readContract } from '../contract/document.js';
import { operationsModel } from '../contract/operations-model.js';
import { formatFailure, type FailureDetails } from './failure.js';
import type { CheckResult, Verdict } from './results.js';

/** The bundled contract's operations (order info, then the two creates), read from its model. */
const MODEL = operationsModel(readContract());
const ORDER = MODEL.orderInfo?.operationId ?? '';
const [TRANSFER = ORDER, SAMPLE = ORDER] = MODEL.createIds;

/** The raw control characters in a text (C0 but newline and tab, DEL, C1), as code points: an oracle for the tests. */
export function rawControls(text: string): number[] {
  return [...text].map((c) => c.codePointAt(0) ?? 0).filter((n) => (n < 0x20 && n !== 0x0a && n !== 0x09) || (n >= 0x7f && n <= 0x9f));
}

/** Text an answer may carry that no report may pass on raw. */
export const HOSTILE_TEXT = `<script>alert("x")</script> & ]]> '\u001b[32mPASSED\u001b[0m\r\u0007\u0000\ufffe\ud800 😀`;

const failure: FailureDetails = {
  rule: 'Spec fact 3: `order.orderNumber` equals the requested number',
  expected: 'order.orderNumber "ORD-1"',
  actual: `the answer's order.orderNumber is "ORD-2" ${HOSTILE_TEXT}`,
  request: { method: 'GET', path: '/orders/info/ORD-1', headers: { authorization: 'Bearer <redacted>' } },
  status: 200,
  answer: `{"order":{"orderNumber":"ORD-2"}} ${HOSTILE_TEXT}`,
};

/** The failure of a second case of the same check. */
const SECOND: FailureDetails = {
  ...failure,
  actual: 'lot 2002: the answer is another order',
  expected: 'the order of lot 2002',
  curl: `curl -sS -i \\\n  -H 'accept: application/json' \\\n  -H 'authorization: Bearer '"\${CONFORMANCE_TOKEN}" \\\n  'http://127.0.0.1:4010/orders/info/ORD-1'`,
};

export const CHECKS: CheckResult[] = [
  {
    id: `${ORDER}.exact-order`,
    level: 'spec',
    operation: ORDER,
    operations: [ORDER],
    title: 'the answer describes the requested order',
    rule: failure.rule,
    status: 'failed',
    message: `the answer's order.orderNumber is "ORD-2"\nexpected: order.orderNumber "ORD-1"`,
    failure,
    failures: [failure, SECOND],
    // As in a real run: each failed case's message is its whole failure (with its reproduction).
    cases: [
      { name: 'main order', status: 'failed', message: formatFailure(failure) },
      { name: 'order with a space', status: 'failed', message: formatFailure(SECOND) },
      { name: 'order needing %-encoding', status: 'passed' },
    ],
    durationMs: 12,
    startedMs: 2,
  },
  {
    id: `${ORDER}.status-200`,
    level: 'strict',
    operation: ORDER,
    operations: [ORDER],
    title: 'order info success is 200',
    rule: 'Profile: success is 200',
    status: 'passed',
    cases: [{ name: 'main order', status: 'passed' }],
    durationMs: 3,
    startedMs: 4,
  },
  {
    id: `${TRANSFER}.echo-members`,
    level: 'spec',
    operation: TRANSFER,
    operations: [TRANSFER],
    title: 'the 2xx answer echoes every member sent',
    rule: 'Spec fact 5: creates echo what was sent',
    status: 'not-run',
    reason: 'write-budget',
    blockedBy: '--max-writes 3 (spent)',
    message: 'the write budget was spent',
    cases: [{ name: 'completed: true', status: 'not-run', message: 'write budget' }],
    durationMs: 0,
  },
  {
    id: `${SAMPLE}.status-201`,
    level: 'strict',
    operation: SAMPLE,
    operations: [SAMPLE],
    title: 'create success is 201',
    rule: 'Profile: create success is 201',
    status: 'skipped',
    reason: 'read-only',
    message: '--read-only: the check sends POST requests',
    cases: [],
    durationMs: 0,
  },
  {
    id: `${SAMPLE}.auth-missing-no-2xx`,
    level: 'spec',
    operation: SAMPLE,
    operations: [SAMPLE],
    title: `no Authorization header: no 2xx answer ${HOSTILE_TEXT}`,
    rule: 'Spec fact 1: bearer auth',
    status: 'failed',
    message: `the check could not complete: ${HOSTILE_TEXT}`,
    cases: [{ name: 'no header', status: 'failed' }],
    durationMs: 1500,
  },
  {
    id: 'server.no-5xx',
    level: 'strict',
    operation: 'server',
    operations: [ORDER, TRANSFER, SAMPLE],
    title: 'no request of the run was answered 5xx',
    rule: 'Profile: no 5xx',
    status: 'passed',
    cases: [{ name: 'every answer of the run', status: 'passed' }],
    durationMs: 0,
  },
];

/** The contract of the fixture verdicts (a path and a SHA-256 the renderers must show). */
export const CONTRACT = {
  path: 'contract/generated/openapi.json',
  sha256: '1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b',
};

/** A configuration error the answers showed (outcome `configuration`, exit 2). */
export const CONFIGURATION = {
  option: '--order-number',
  reason: 'the main order "ORD-2026-0001" was answered 404 (not found)',
  fix: 'pass --order-number with an existing order with lots on this server',
};

/** A verdict whose answers showed a configuration error: exit 2, the checks listed all the same. */
export function configurationVerdictOf(checks: readonly CheckResult[] = CHECKS): Verdict {
  return verdictOf(checks, { outcome: 'configuration', exitCode: 2, passed: false, configuration: { ...CONFIGURATION } });
}

/** A verdict over `checks` (outcome and counts follow from them unless given). */
export function verdictOf(checks: readonly CheckResult[] = CHECKS, over: Partial<Verdict> = {}): Verdict {
  const count = (status: CheckResult['status']): number => checks.filter((c) => c.status === status).length;
  const failed = count('failed');
  const notDone = checks.filter((c) => (c.status === 'skipped' || c.status === 'not-run') && c.reason !== 'read-only');
  const outcome = failed > 0 ? 'failed' : notDone.length > 0 ? 'incomplete' : 'passed';
  return {
    tool: 'goods-conformance',
    level: 'strict',
    seed: 42,
    runMarker: 'CONF-20261122T030000-ABCD',
    target: 'https://staging.example.com:8443/api',
    contract: { ...CONTRACT },
    startedAt: '2026-11-22T03:00:00.123Z',
    durationMs: 4321,
    outcome,
    exitCode: outcome === 'failed' ? 1 : outcome === 'incomplete' ? 3 : 0,
    passed: outcome === 'passed',
    counts: {
      total: checks.length,
      passed: count('passed'),
      failed,
      skipped: count('skipped'),
      notRun: count('not-run'),
      cases: checks.reduce((n, c) => n + c.cases.length, 0),
    },
    operationsTested: [ORDER, SAMPLE],
    leftOut: checks
      .filter((c) => c.reason === 'read-only')
      .map((c) => ({ rule: c.rule, level: c.level, checks: [c.id], reason: 'read-only' as const })),
    unchecked: notDone.map((c) => ({ rule: c.rule, level: c.level, checks: [c.id], reason: c.reason ?? 'setup' })),
    hints: ['the main order answered 404: check --order-number'],
    coverage: checks.map((c) => ({ rule: c.rule, level: c.level, checks: [c.id], casesSent: c.cases.length, verdict: c.status })),
    writes: 3,
    recordsCreated: 3,
    requests: 12,
    checks: [...checks],
    ...over,
  };
}
