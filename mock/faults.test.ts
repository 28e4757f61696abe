import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import { readContract } from '../contract/document.js';
import { CONTROL_CONTRACT_PATH } from './dashboard.js';
import {
  delayMs,
  FAULT_LIMITS,
  faultOrReason,
  faultText,
  FAULTS,
  INJECTED_STATUSES,
  parseFault,
  preferredFault,
  truncatedLength,
  type FaultKindName,
} from './faults.js';
import { PROBLEMS, ProblemError } from './problems.js';

/** The catalogue table of docs/faults.md: kind → [request column, contracts column]. */
function documentedKinds(): Map<string, [string, string]> {
  const text = readFileSync(join(PROJECT_ROOT, 'docs', 'faults.md'), 'utf8');
  const section = /^## The faults\n([\s\S]*?)^## /m.exec(text)?.[1] ?? '';
  const rows = new Map<string, [string, string]>();
  for (const match of section.matchAll(/^\| `([a-z]+)` +\|[^\n]*?\| ([a-z -]+?) +\| ([a-z -]+?) +\|$/gm))
    rows.set(match[1] ?? '', [match[2] ?? '', match[3] ?? '']);
  return rows;
}

const EFFECT_WORDS = { replaces: 'not handled', delays: 'handled after the delay', damages: 'handled' } as const;

describe('mock/faults: the fault catalogue and its grammar', () => {
  it('reads every kind of the grammar back to its canonical text', () => {
    const cases: [string, string][] = [
      ['status:500', 'status:500'],
      ['status:502', 'status:502'],
      ['status:503', 'status:503'],
      ['status:504', 'status:504'],
      ['delay:1500', 'delay:1500'],
      ['delay:0', 'delay:0'],
      ['delay:200-900', 'delay:200-900'],
      ['delay:700-700', 'delay:700'],
      [`delay:${FAULT_LIMITS.maxDelayMs}`, `delay:${FAULT_LIMITS.maxDelayMs}`],
      ['drop', 'drop'],
      ['reset', 'reset'],
      ['empty', 'empty'],
      ['truncate', 'truncate'],
      ['truncate:0', 'truncate:0'],
      ['truncate:100', 'truncate:100'],
      [`drip:${FAULT_LIMITS.minDripBytesPerSecond}`, `drip:${FAULT_LIMITS.minDripBytesPerSecond}`],
      ['drip:2048', 'drip:2048'],
    ];
    for (const [text, canonical] of cases) {
      const fault = parseFault(text, 'Prefer: fault=');
      assert.equal(faultText(fault), canonical, text);
      assert.deepEqual(parseFault(faultText(fault), 'again: '), fault, text);
    }
    const kinds = new Set(cases.map(([text]) => text.split(':', 1)[0]));
    assert.deepEqual([...kinds].sort(), Object.keys(FAULTS).sort(), 'every kind of the catalogue is read');
  });

  it('refuses anything else with a 400 invalid-fault that says why and lists the grammar', () => {
    const bad: [string, RegExp][] = [
      ['', /must be one of status, delay, drop, reset, empty, truncate, drip/],
      ['teapot', /must be one of/],
      ['STATUS:503', /must be one of/],
      ['status', /status needs its parameter/],
      ['status:418', /status must be one of status:500 \| status:502/],
      ['status:501', /status must be one of/],
      ['status:5030', /status must be one of/],
      ['delay', /delay needs its parameter/],
      ['delay:-5', /delay must be whole milliseconds/],
      ['delay:1.5', /delay must be whole milliseconds/],
      [`delay:${FAULT_LIMITS.maxDelayMs + 1}`, /from 0 to 60000/],
      ['delay:900-200', /MIN <= MAX/],
      ['delay:1-2-3', /delay must be/],
      ['delay:1e3', /delay must be/],
      ['drop:1', /drop takes no parameter/],
      ['reset:', /reset takes no parameter/],
      ['empty:0', /empty takes no parameter/],
      ['truncate:', /truncate:BYTES must be a whole number/],
      [`truncate:${FAULT_LIMITS.maxTruncateBytes + 1}`, /truncate:BYTES/],
      ['drip', /drip needs its parameter/],
      [`drip:${FAULT_LIMITS.minDripBytesPerSecond - 1}`, /bytes per second from 10 to 1048576/],
      [`drip:${FAULT_LIMITS.maxDripBytesPerSecond + 1}`, /bytes per second/],
      ['drip:fast', /bytes per second/],
      ['drop ', /must be one of/],
    ];
    for (const [text, reason] of bad) {
      assert.equal(typeof faultOrReason(text), 'string', text);
      assert.throws(
        () => parseFault(text, 'Prefer: fault='),
        (error: unknown) => {
          assert.ok(error instanceof ProblemError, text);
          assert.equal(error.kind, PROBLEMS.invalidFault);
          assert.match(error.detail, reason, text);
          assert.ok(error.detail.startsWith(`Prefer: fault=${JSON.stringify(text)} is not a fault: `), error.detail);
          assert.match(error.detail, /Faults: status:500 \| .*drip:BYTES_PER_SECOND .*docs\/faults\.md/, text);
          return true;
        },
      );
    }
  });

  it('finds fault= in a Prefer header, plain or quoted (RFC 7240), among other preferences', () => {
    assert.equal(preferredFault(undefined), undefined);
    assert.equal(preferredFault('return=minimal'), undefined);
    assert.equal(preferredFault('code=503'), undefined);
    assert.equal(preferredFault('fault=drop'), 'drop');
    assert.equal(preferredFault('respond-async, fault="status:503"; wait=10'), 'status:503');
    assert.equal(preferredFault('FAULT = delay:100-200'), 'delay:100-200');
    assert.equal(preferredFault('fault='), '');
    assert.equal(preferredFault('fault=drop, fault=reset'), 'drop', 'the first one counts');
    assert.equal(preferredFault('faults=drop, x-fault=reset'), undefined, 'only the preference named fault');
  });

  it('keeps trailing text and inner spaces in the value, so a value with more than the grammar is refused, not ignored', () => {
    const cases: [string, string, RegExp][] = [
      ['fault=delay: 10', 'delay: 10', /delay must be whole milliseconds/],
      ['fault=delay:2000 x', 'delay:2000 x', /delay must be whole milliseconds/],
      ['fault=status:503 junk', 'status:503 junk', /status must be one of/],
      ['fault="status:503 "', 'status:503 ', /status must be one of/],
      ['fault=drop now', 'drop now', /the fault must be one of/],
      ['respond-async, fault', '', /the fault must be one of/],
    ];
    for (const [header, value, reason] of cases) {
      assert.equal(preferredFault(header), value, header);
      assert.throws(
        () => parseFault(value, 'Prefer: fault='),
        (error: unknown) => error instanceof ProblemError && error.kind === PROBLEMS.invalidFault && reason.test(error.detail),
        header,
      );
    }
  });

  it('cuts a truncated body short of its end, half by default', () => {
    assert.equal(truncatedLength({ bytes: undefined }, 1000), 500);
    assert.equal(truncatedLength({ bytes: 10 }, 1000), 10);
    assert.equal(truncatedLength({ bytes: 0 }, 1000), 0);
    assert.equal(truncatedLength({ bytes: 5000 }, 1000), 999, 'never the whole body');
    assert.equal(truncatedLength({ bytes: undefined }, 1), 0);
    assert.equal(truncatedLength({ bytes: 3 }, 0), 0);
  });

  it('draws a delay within its range, both ends included', () => {
    assert.equal(delayMs({ minMs: 300, maxMs: 300 }), 300);
    assert.equal(
      delayMs({ minMs: 100, maxMs: 200 }, () => 0),
      100,
    );
    assert.equal(
      delayMs({ minMs: 100, maxMs: 200 }, () => 0.999999),
      200,
    );
    for (let i = 0; i < 200; i++) {
      const ms = delayMs({ minMs: 10, maxMs: 20 });
      assert.ok(ms >= 10 && ms <= 20 && Number.isInteger(ms), String(ms));
    }
  });

  it('answers each injected status with its own problem of the catalogue', () => {
    for (const [status, name] of Object.entries(INJECTED_STATUSES)) {
      const kind = PROBLEMS[name];
      assert.equal(kind.status, Number(status));
      assert.match(kind.type, /\/injected-[a-z-]+$/);
      assert.match(kind.title, /^Injected fault: /);
    }
  });

  it('is documented in docs/faults.md, kind by kind, with what happens to the request and the answer', () => {
    const rows = documentedKinds();
    assert.ok(rows.size > 0, 'docs/faults.md has no table of faults (the check can fail)');
    const expected = new Map(
      (Object.keys(FAULTS) as FaultKindName[]).map((kind): [string, [string, string]] => [
        kind,
        [EFFECT_WORDS[FAULTS[kind].effect], FAULTS[kind].outcome],
      ]),
    );
    assert.deepEqual(Object.fromEntries(rows), Object.fromEntries(expected));
  });

  it('lists the faults without a documented answer in the mock-control contract, as the catalogue says', () => {
    const listed = readContract(CONTROL_CONTRACT_PATH)['x-faults'] as Record<string, string[]>;
    const byOutcome = (outcome: string) =>
      (Object.keys(FAULTS) as FaultKindName[]).filter((kind) => FAULTS[kind].outcome === outcome).sort();
    assert.deepEqual([...(listed['out-of-contract'] ?? [])].sort(), byOutcome('out-of-contract'));
    assert.deepEqual([...(listed['no-answer'] ?? [])].sort(), byOutcome('no-answer'));
    assert.ok(byOutcome('documented').length > 0);
  });
});
