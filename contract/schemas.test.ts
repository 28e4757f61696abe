import assert from 'node:assert/strict';
import type { ErrorObject } from 'ajv/dist/2020.js';
import { isObject, readContract } from './document.js';
import { compileContract, toFieldErrors } from './schemas.js';
import { deepFreeze } from '../util/frozen.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

describe('contract schemas (contract/schemas.ts)', () => {
  const doc = readContract();
  const strict = compileContract(doc, 'strict');
  const spec = compileContract(doc, 'spec');

  describe('toFieldErrors', () => {
    const error = (keyword: string, instancePath: string, params: Record<string, unknown>, message?: string): ErrorObject => ({
      keyword,
      instancePath,
      schemaPath: '#/x',
      params,
      ...(message === undefined ? {} : { message }),
    });

    it('points a missing member at the member itself, escaping ~ and / (RFC 6901)', () => {
      assert.deepEqual(toFieldErrors([error('required', '/order', { missingProperty: 'a/b~c' }, "must have required property 'a/b~c'")]), [
        { pointer: '/order/a~1b~0c', detail: 'is required' },
      ]);
    });

    it('points an unknown member at the member and says how to fix it', () => {
      assert.deepEqual(toFieldErrors([error('unevaluatedProperties', '', { unevaluatedProperty: 'extra' })]), [
        { pointer: '/extra', detail: 'is not a member of this object; remove it' },
      ]);
    });

    it('names the expected type and format', () => {
      assert.deepEqual(toFieldErrors([error('type', '/amount', { type: 'number' }, 'must be number')]), [
        { pointer: '/amount', detail: 'must be of type number' },
      ]);
      assert.deepEqual(
        toFieldErrors([error('type', '/lots/1/amount', { type: 'number' }, 'must be number')], {
          lots: [{}, { amount: Number.POSITIVE_INFINITY }],
        }),
        [
          {
            pointer: '/lots/1/amount',
            detail:
              'is a number beyond the range of a 64-bit float (it reads as Infinity); send a number between -1.7976931348623157e308 and 1.7976931348623157e308',
          },
        ],
      );
      assert.deepEqual(toFieldErrors([error('type', '/name', { type: 'string' }, 'must be string')], { name: Number.NEGATIVE_INFINITY }), [
        { pointer: '/name', detail: 'must be of type string' },
      ]);
      assert.deepEqual(toFieldErrors([error('type', '/amount', { type: 'integer' }, 'must be integer')], { amount: 2.5 }), [
        { pointer: '/amount', detail: 'must be of type integer' },
      ]);
      assert.deepEqual(toFieldErrors([error('format', '/created', { format: 'date-time' })]), [
        { pointer: '/created', detail: 'must be a date-time string' },
      ]);
    });

    it('drops the allOf echo and duplicates, keeps other messages, and accepts no errors', () => {
      const errors = [
        error('minimum', '/fk_lot_id', { limit: 1 }, 'must be >= 1'),
        error('allOf', '', {}, 'must match all schemas'),
        error('minimum', '/fk_lot_id', { limit: 1 }, 'must be >= 1'),
      ];
      assert.deepEqual(toFieldErrors(errors), [{ pointer: '/fk_lot_id', detail: 'must be >= 1' }]);
      assert.deepEqual(toFieldErrors(null), []);
      assert.deepEqual(toFieldErrors(undefined), []);
    });
  });

  describe('compiled validators', () => {
    it('real ajv errors become pointers to the offending members', () => {
      const validate = strict.validator(ref('LotTransferCreate'));
      const found = validate({ fk_lot_id: 2001, source_scancode: 'S', amount: 'a lot', colour: 'red' });
      assert.deepEqual(
        [...found].sort((a, b) => a.pointer.localeCompare(b.pointer)),
        [
          { pointer: '/amount', detail: 'must be of type number' },
          { pointer: '/colour', detail: 'is not a member of this object; remove it' },
          { pointer: '/target_scancode', detail: 'is required' },
        ],
      );
    });

    it('remembers its verdict on a value frozen whole, and judges any other value afresh', () => {
      const validate = strict.validator(ref('LotTransferCreate'));
      const frozen = { fk_lot_id: 2001, source_scancode: 'S', amount: 'a lot' };
      deepFreeze(frozen);
      const first = validate(frozen);
      assert.deepEqual(first.map((problem) => problem.pointer).sort(), ['/amount', '/target_scancode']);
      assert.equal(validate(frozen), first, 'the same verdict, not judged again');
      assert.ok(Object.isFrozen(first) && Object.isFrozen(first[0]), 'a remembered verdict cannot be changed by a reader');
      // A value that is not frozen whole may change between two calls: each call judges it.
      const open = { fk_lot_id: 2001, source_scancode: 'S', amount: 'a lot', target_scancode: 'T' };
      assert.equal(validate(open).length, 1);
      open.amount = 'still not a number';
      assert.equal(validate(open).length, 1);
      const fixed: Record<string, unknown> = open;
      fixed['amount'] = 5;
      assert.deepEqual(validate(open), []);
      // Frozen at its top only, its members could still change: judged afresh too.
      const changing: Record<string, unknown> = { fk_lot_id: 2001, source_scancode: 'S', target_scancode: 'T', amount: 1 };
      const top = Object.freeze({ transfer: changing });
      assert.deepEqual(validate(top.transfer), []);
      changing['amount'] = 'x';
      assert.equal(validate(top.transfer).length, 1);
    });

    it('accepts the server-assigned members in a request body (the mock ignores them)', () => {
      const validate = strict.validator(ref('TestSampleCreate'));
      assert.deepEqual(
        validate({ fk_lot_id: 2001, fk_user_id: 1, id: 9, created: '2026-11-21T10:00:00Z', modified: '2026-11-21T10:00:00Z' }),
        [],
      );
    });

    it('strict asserts full-date: a real calendar date in YYYY-MM-DD form', () => {
      const validate = strict.validator(ref('FullDate'));
      assert.deepEqual(validate('2026-02-28'), []);
      assert.deepEqual(validate('2028-02-29'), []);
      for (const bad of ['2026-02-30', '2026-13-01', '2026-2-3', '03.11.2026', '2026-11-03T00:00:00Z']) {
        assert.deepEqual(validate(bad), [{ pointer: '', detail: 'must be a date string' }], bad);
      }
    });

    it('strict asserts date-time: RFC 3339 with a time-zone offset', () => {
      const validate = strict.validator(ref('DateTime'));
      for (const good of ['2026-11-21T09:30:00Z', '2026-11-21T09:30:00.123+01:00', '2026-11-21t09:30:00z'])
        assert.deepEqual(validate(good), [], good);
      for (const bad of ['2026-11-21T09:30:00', '2026-11-21', '2026-11-21 09:30', '2026-11-21T25:00:00Z']) {
        assert.deepEqual(validate(bad), [{ pointer: '', detail: 'must be a date-time string' }], bad);
      }
    });

    it('spec asserts no format: any string is a date', () => {
      assert.deepEqual(spec.validator(ref('FullDate'))('03.11.2026'), []);
      assert.deepEqual(spec.validator(ref('DateTime'))('yesterday'), []);
      assert.deepEqual(spec.validator(ref('DateTime'))(7), [{ pointer: '', detail: 'must be of type string' }]);
    });

    it('validates inline schemas of the document and rejects schemas from elsewhere', () => {
      const components = strict.document['components'];
      assert.ok(isObject(components) && isObject(components['schemas']));
      const scanCode = components['schemas']['ScanCode'];
      assert.ok(isObject(scanCode));
      const validate = strict.validator(scanCode);
      assert.deepEqual(validate('x'), []);
      assert.equal(validate('').length, 1);
      assert.throws(() => strict.validator({ type: 'string' }), /not part of the contract document/);
    });

    it('precompile compiles every given schema once and fails fast on a bad reference', () => {
      const schemas = [
        'OrderInfo',
        'LotTransferCreate',
        'LotTransfer',
        'TestSampleCreate',
        'TestSample',
        'Problem',
        'ValidationProblem',
      ].map(ref);
      const compiled = compileContract(doc, 'strict');
      compiled.precompile(schemas);
      assert.equal(compiled.validator(ref('OrderInfo')), compiled.validator(ref('OrderInfo')), 'the validator is cached');
      assert.throws(() => compiled.precompile([ref('DoesNotExist')]), /DoesNotExist/);
    });

    it('the level is recorded and the spec document has no profile responses', () => {
      assert.equal(strict.level, 'strict');
      assert.equal(spec.level, 'spec');
      const responses = (spec.document['components'] as Record<string, Record<string, unknown>>)['responses'];
      assert.deepEqual(Object.keys(responses ?? {}), []);
    });
  });
});
