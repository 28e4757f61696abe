/** The create cases derived from the contract: the corpus (every class of every member, presence pairwise, every lot, the run marker) and the invalid bodies (one per keyword, with its levels). */
import assert from 'node:assert/strict';
import { readContract, type JsonObject } from '../contract/document.js';
import { judgeContexts } from '../judgments/context.js';
import {
  baseBody,
  carriesMarker,
  createCorpus,
  derivationOf,
  invalidBodies,
  LOT_CAP,
  markerMembers,
  memberClasses,
  pairwisePresence,
  severalProblems,
  writable,
} from './data.js';

const document = readContract();
const jc = judgeContexts(document).strict;
const lots = (n: number) => Array.from({ length: n }, (_, i) => ({ id: 5000 + i, value: { lotNumber: `L-${i}` } }));

/** The bundled contract with one member's schema changed (an evolved contract, built in memory). */
function evolved(change: (schemas: JsonObject) => void): JsonObject {
  const copy = structuredClone(document);
  const components = copy['components'] as JsonObject;
  change(components['schemas'] as JsonObject);
  return copy;
}

describe('the systematic create corpus', () => {
  for (const op of jc.model.creates) {
    const d = derivationOf(jc, op.operationId);
    it(`${op.operationId}: every class of every member is sent at least once, each valid under the strict schema`, () => {
      const corpus = createCorpus(d, lots(3), 'MARK');
      for (const body of corpus) assert.deepEqual(d.validate.strict(body.body), [], body.name);
      for (const member of writable(op).filter((m) => !m.namesLot)) {
        const classes = memberClasses(d, member);
        assert.ok(classes.length >= 2, `${member.name} has classes`);
        for (const c of classes)
          assert.ok(
            corpus.some((b) => b.name.includes(`${member.name}: ${c.name}`)),
            `${member.name}: ${c.name} sent`,
          );
        if (!member.required)
          assert.ok(
            corpus.some((b) => !(member.name in b.body)),
            `${member.name} omitted once`,
          );
      }
    });

    it(`${op.operationId}: the optional members' presence is combined pairwise`, () => {
      const corpus = createCorpus(d, lots(3), 'MARK');
      const optional = writable(op).filter((m) => !m.required && !carriesMarker(m));
      for (const a of optional)
        for (const b of optional) {
          if (a === b) continue;
          for (const pa of [true, false])
            for (const pb of [true, false])
              assert.ok(
                corpus.some((x) => a.name in x.body === pa && b.name in x.body === pb),
                `${a.name} ${pa ? 'present' : 'omitted'} with ${b.name} ${pb ? 'present' : 'omitted'}`,
              );
        }
    });

    it(`${op.operationId}: every lot up to ${LOT_CAP} is named; every body carries the run marker, unique per body`, () => {
      const corpus = createCorpus(d, lots(LOT_CAP + 3), 'MARK');
      assert.deepEqual(new Set(corpus.map((b) => b.lot.id)), new Set(lots(LOT_CAP).map((l) => l.id)));
      corpus.forEach((b, r) =>
        assert.ok(
          Object.values(b.body).some((v) => typeof v === 'string' && v.includes(`MARK-${r}`)),
          `${b.name} carries the marker`,
        ),
      );
      assert.ok(markerMembers(d, 'MARK').length > 0);
    });

    it(`${op.operationId}: the corpus does not depend on anything random (two builds are equal)`, () => {
      assert.deepEqual(createCorpus(d, lots(2), 'M'), createCorpus(d, lots(2), 'M'));
    });

    it(`${op.operationId}: each invalid body is refused by the strict schema at its pointer; spec-level ones by the spec schema too`, () => {
      const valid = baseBody(d, 5000);
      const cases = invalidBodies(d, valid);
      assert.ok(cases.length > 10);
      for (const c of cases) {
        assert.ok(
          d.validate.strict(c.body).some((e) => e.pointer === c.pointers[0]),
          c.label,
        );
        assert.equal(
          d.validate.spec(c.body).some((e) => e.pointer === c.pointers[0]),
          c.levels.includes('spec'),
          c.label,
        );
      }
      // The profile's keywords are strict only; the specification's types hold at both levels.
      for (const c of cases.filter((x) => x.keyword === 'required' || x.keyword === 'unevaluatedProperties'))
        assert.deepEqual(c.levels, ['strict'], c.label);
      assert.ok(cases.filter((x) => x.keyword === 'type').every((x) => x.levels.includes('spec')));
      const [several] = severalProblems(cases, valid);
      assert.ok(several && several.pointers.length >= 3, 'several problems combined');
      const pointers = new Set(d.validate.strict(several.body).map((e) => e.pointer));
      for (const p of several.pointers) assert.ok(pointers.has(p), p);
    });
  }

  it('pairwise presence covers every pair of choices with fewer rows than the cartesian product', () => {
    for (const n of [2, 3, 4, 6, 8]) {
      const rows = pairwisePresence(n);
      for (let i = 0; i < n; i++)
        for (let j = i + 1; j < n; j++)
          for (const a of [true, false])
            for (const b of [true, false])
              assert.ok(
                rows.some((r) => r[i] === a && r[j] === b),
                `${n}: ${i},${j}`,
              );
      if (n >= 4) assert.ok(rows.length < 2 ** n, `${n} members: ${rows.length} rows`);
    }
  });

  it('an evolved contract drives the cases: a maxLength clips every class, a pattern and an enum replace them, each keyword gets its invalid case', () => {
    const doc = evolved((schemas) => {
      const fields = (schemas['LotTransferFields'] as JsonObject)['properties'] as JsonObject;
      fields['source_scancode'] = { type: 'string', minLength: 1, maxLength: 40 };
      fields['target_scancode'] = { type: 'string', pattern: '^TGT-[0-9]{4}$' };
      fields['amount'] = { type: 'number', exclusiveMinimum: 0, maximum: 1000, multipleOf: 0.5 };
      fields['priority'] = { type: 'string', enum: ['LOW', 'HIGH'] };
    });
    const evolvedJc = judgeContexts(doc).strict;
    const d = derivationOf(evolvedJc, evolvedJc.model.createIds[0] ?? 'createLotTransfer');
    const corpus = createCorpus(d, lots(3), 'CONF-20261124T000000-ABCD');
    for (const b of corpus) {
      assert.deepEqual(d.validate.strict(b.body), [], b.name);
      const source = b.body['source_scancode'];
      assert.ok(typeof source === 'string' && [...source].length <= 40);
      assert.match(JSON.stringify(b.body['target_scancode']), /^"TGT-[0-9]{4}"$/);
    }
    assert.ok(corpus.some((b) => b.body['priority'] === 'LOW') && corpus.some((b) => b.body['priority'] === 'HIGH'));
    const keywords = new Set(invalidBodies(d, corpus[0]?.body ?? {}).map((c) => `${c.pointers[0] ?? ''} ${c.keyword}`));
    for (const wanted of [
      '/source_scancode maxLength',
      '/target_scancode pattern',
      '/amount maximum',
      '/amount multipleOf',
      '/priority enum',
    ])
      assert.ok(keywords.has(wanted), wanted);
  });
});
