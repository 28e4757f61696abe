/** --list-checks: every check of the level with its level, rule and cases, grouped by operation. */
import assert from 'node:assert/strict';
import { CHECKS } from '../checks/index.js';
import { checksOfLevel } from '../suite.js';
import { renderCheckList } from './check-list.js';

describe('check list (--list-checks)', () => {
  it('lists every registered check of the level with its rule', () => {
    for (const level of ['spec', 'strict'] as const) {
      const checks = checksOfLevel(CHECKS, level);
      const text = renderCheckList(checks, level);
      assert.match(text, new RegExp(`^goods conformance: ${checks.length} checks at level ${level}\\n`));
      for (const check of checks) {
        assert.ok(text.includes(`[${check.level}]`) && text.includes(check.id), check.id);
        assert.ok(text.includes(`rule: ${check.rule}`), check.rule);
      }
      if (level === 'spec') assert.ok(!text.includes('[strict]'));
    }
  });

  it('shows the cases a check sends, when it lists them', () => {
    const text = renderCheckList(
      [
        {
          id: 'a.b',
          level: 'spec',
          operations: ['a'],
          title: 't',
          rule: 'r',
          write: true,
          cases: ['amount: negative', 'amount: \u001b[31m'],
        },
      ],
      'spec',
    );
    assert.match(text, /\[spec\] +a\.b \(writes\)\n {6}t\n {6}rule: r\n {6}cases \(2\): amount: negative; amount: \\x1b\[31m\n/);
  });
});
