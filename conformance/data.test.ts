/** The systematic create corpus: every value class of every member, every optional member omitted, every lot, the run marker in every body; fixed (no seed). */
import assert from 'node:assert/strict';
import { readContract } from '../contract/document.js';
import { operationsModel } from '../contract/operations-model.js';
import { carriesMarker, createCorpus, LOT_CAP, valueClasses, writable, wrongTypeValues } from './data.js';

const model = operationsModel(readContract());
const lots = (n: number) => Array.from({ length: n }, (_, i) => ({ id: 5000 + i, value: { lotNumber: `L-${i}` } }));

describe('the systematic create corpus', () => {
  for (const op of model.creates) {
    it(`${op.operationId}: every class of every member is sent (and every optional member omitted) at least once`, () => {
      const corpus = createCorpus(op, lots(3), 'MARK');
      for (const member of writable(op).filter((m) => !m.namesLot)) {
        const wanted = [...valueClasses(member, 'MARK').map((c) => c.value), ...(member.required ? [] : ['(omitted)'])];
        const sent = corpus.map((b) => (member.name in b.body ? b.body[member.name] : '(omitted)'));
        for (const value of wanted)
          assert.ok(
            sent.some((s) => JSON.stringify(s) === JSON.stringify(value)),
            `${member.name}: ${JSON.stringify(value)} sent`,
          );
      }
    });

    it(`${op.operationId}: every lot up to ${LOT_CAP} is named; every body carries the run marker`, () => {
      const corpus = createCorpus(op, lots(LOT_CAP + 3), 'MARK');
      assert.deepEqual(new Set(corpus.map((b) => b.lot.id)), new Set(lots(LOT_CAP).map((l) => l.id)));
      for (const b of corpus)
        assert.ok(
          writable(op).some((m) => {
            const v = b.body[m.name];
            return carriesMarker(m) && typeof v === 'string' && v.startsWith('MARK');
          }),
          `${b.name} carries the marker`,
        );
    });

    it(`${op.operationId}: the corpus does not depend on anything random (two builds are equal)`, () => {
      assert.deepEqual(createCorpus(op, lots(2), 'M'), createCorpus(op, lots(2), 'M'));
    });
  }

  it("wrong types: every JSON type but the member's own (an integer also gets a fraction)", () => {
    const integer = writable(model.creates[0] ?? model.orderInfo).find((m) => m.type === 'integer');
    assert.ok(integer);
    assert.deepEqual(
      wrongTypeValues(integer).map((c) => c.name),
      ['string', 'fraction', 'boolean', 'null', 'array', 'object'],
    );
  });
});
