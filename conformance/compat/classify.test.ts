/** The direction rules of `classify.ts`, keyword by keyword, and what each direction does to each side. */
import assert from 'node:assert/strict';
import type { JsonValue } from '../../contract/document.js';
import {
  describe as describeChange,
  keywordDirection,
  keywordVerdict,
  operationVerdict,
  requiredVerdict,
  securityVerdict,
} from './classify.js';

describe('compat: which way a change moves what is allowed', () => {
  const table: [string, JsonValue | undefined, JsonValue | undefined, string | undefined][] = [
    ['minimum', undefined, 1, 'narrowed'],
    ['minimum', 1, 0, 'widened'],
    ['minimum', 1, 1, undefined],
    ['exclusiveMinimum', 0, 1, 'narrowed'],
    ['maximum', 10000, 5000, 'narrowed'],
    ['maximum', 10000, undefined, 'widened'],
    ['maxLength', 40, 80, 'widened'],
    ['minLength', 1, 0, 'widened'],
    ['minItems', undefined, 1, 'narrowed'],
    ['type', 'integer', 'number', 'widened'],
    ['type', 'number', 'integer', 'narrowed'],
    ['type', 'string', ['string', 'null'], 'widened'],
    ['type', ['string', 'null'], 'string', 'narrowed'],
    ['type', 'integer', 'string', 'changed'],
    ['enum', ['A', 'B'], ['A'], 'narrowed'],
    ['enum', ['A'], ['A', 'B'], 'widened'],
    ['enum', ['A', 'B'], ['A', 'C'], 'changed'],
    ['enum', undefined, ['A'], 'narrowed'],
    ['enum', ['A'], undefined, 'widened'],
    ['multipleOf', 0.5, 1, 'narrowed'],
    ['multipleOf', 1, 0.5, 'widened'],
    ['multipleOf', 2, 3, 'changed'],
    ['pattern', undefined, '^[A-Z]+$', 'narrowed'],
    ['pattern', '^[A-Z]+$', undefined, 'widened'],
    ['pattern', '^[A-Z]+$', '^[0-9]+$', 'changed'],
    ['format', 'date', 'date-time', 'changed'],
    ['uniqueItems', false, true, 'narrowed'],
    ['uniqueItems', undefined, false, undefined],
    ['unevaluatedProperties', undefined, false, 'narrowed'],
    ['additionalProperties', false, true, 'widened'],
    ['additionalProperties', true, undefined, undefined],
    ['additionalProperties', false, { type: 'string' }, 'changed'],
  ];
  for (const [keyword, a, b, expected] of table) {
    it(`${keyword}: ${JSON.stringify(a) ?? 'absent'} → ${JSON.stringify(b) ?? 'absent'} is ${expected ?? 'no change'}`, () => {
      assert.equal(keywordDirection(keyword, a, b), expected);
    });
  }

  it('a request: narrowed breaks both sides, widened breaks servers only', () => {
    assert.deepEqual(pick(keywordVerdict('request', 'maximum', undefined, 5)), ['narrowed', 'breaking', 'breaking']);
    assert.deepEqual(pick(keywordVerdict('request', 'maximum', 5, undefined)), ['widened', 'compatible', 'breaking']);
  });

  it('an answer: narrowed breaks servers only, widened breaks clients only, unless it is the echo of the request', () => {
    assert.deepEqual(pick(keywordVerdict('answer', 'enum', ['A', 'B'], ['A'])), ['narrowed', 'compatible', 'breaking']);
    assert.deepEqual(pick(keywordVerdict('answer', 'enum', ['A'], ['A', 'B'])), ['widened', 'breaking', 'compatible']);
    assert.deepEqual(pick(keywordVerdict('answer', 'enum', ['A'], ['A', 'B'], { echoed: true })), ['widened', 'compatible', 'compatible']);
    assert.deepEqual(pick(keywordVerdict('answer', 'type', 'integer', 'string', { echoed: true })), ['changed', 'breaking', 'breaking']);
  });

  it('readOnly and default judge what the server does with a request', () => {
    assert.deepEqual(pick(keywordVerdict('request', 'readOnly', true, undefined)), ['changed', 'breaking', 'breaking']);
    assert.equal(keywordVerdict('request', 'readOnly', false, undefined), undefined);
    assert.deepEqual(pick(keywordVerdict('request', 'default', 'NEW', 'OPEN')), ['changed', 'breaking', 'breaking']);
    assert.deepEqual(pick(keywordVerdict('request', 'default', undefined, 'NEW')), ['narrowed', 'compatible', 'breaking']);
    assert.deepEqual(pick(keywordVerdict('request', 'default', 'NEW', undefined)), ['widened', 'breaking', 'compatible']);
  });

  it('required: in a request it narrows, in an answer it narrows for servers', () => {
    assert.deepEqual(pick(requiredVerdict('request', true)), ['narrowed', 'breaking', 'breaking']);
    assert.deepEqual(pick(requiredVerdict('request', false)), ['widened', 'compatible', 'breaking']);
    assert.deepEqual(pick(requiredVerdict('answer', true)), ['narrowed', 'compatible', 'breaking']);
    assert.deepEqual(pick(requiredVerdict('answer', false)), ['widened', 'breaking', 'compatible']);
  });

  it('operations: removed breaks clients, added breaks servers, a body limit lowered breaks both', () => {
    assert.deepEqual(pick(operationVerdict('operation', 'GET /a', undefined)), ['narrowed', 'breaking', 'compatible']);
    assert.deepEqual(pick(operationVerdict('operation', undefined, 'GET /a')), ['widened', 'compatible', 'breaking']);
    assert.deepEqual(pick(operationVerdict('max-body-bytes', 1048576, 65536)), ['narrowed', 'breaking', 'breaking']);
    assert.deepEqual(pick(operationVerdict('max-body-bytes', 65536, 1048576)), ['widened', 'compatible', 'breaking']);
  });

  it('security moves as a request does: credentials lost break both sides, credentials gained break servers, a rename neither', () => {
    assert.deepEqual(pick(securityVerdict('x', { lost: true, gained: false })), ['narrowed', 'breaking', 'breaking']);
    assert.deepEqual(pick(securityVerdict('x', { lost: false, gained: true })), ['widened', 'compatible', 'breaking']);
    assert.deepEqual(pick(securityVerdict('x', { lost: true, gained: true })), ['changed', 'breaking', 'breaking']);
    assert.deepEqual(pick(securityVerdict('x', { lost: false, gained: false })), ['changed', 'compatible', 'compatible']);
    assert.match(
      securityVerdict('apiKeyAuth added', { lost: true, gained: false }).reason,
      /^apiKeyAuth added: a v1 client sending what v1 asks for is refused now/,
    );
  });

  it('the reason names what changed', () => {
    assert.equal(describeChange('enum', ['A', 'B'], ['A', 'C']), 'enum: "B" removed; enum: "C" added');
    assert.equal(describeChange('maximum', 10000, 5000), 'maximum 10000 → 5000');
    assert.equal(describeChange('pattern', undefined, '^[A-Z]+$'), 'pattern "^[A-Z]+$" added');
  });
});

function pick(verdict: { direction: string; clients: string; servers: string } | undefined): string[] | undefined {
  return verdict && [verdict.direction, verdict.clients, verdict.servers];
}
