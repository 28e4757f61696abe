/**
 * mock/handlers.ts: order info from pre-serialized fixture bodies, the check of a create body, and
 * the create itself (the record's shape). Member names, examples and rules are read from the bundled
 * contract (its operations model and record model), never typed here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { JsonObject, JsonValue } from '../contract/document.js';
import { checkCreateBody, create, orderBodies, orderInfo, type CreateContext, type CreateOperation } from './handlers.js';
import { ProblemError, PROBLEMS, type ProblemKind } from './problems.js';
import { formatSequence } from './record-model.js';
import type { MemoryStore } from './store/memory.js';
import { bundledContract } from './testing.js';

const bundled = bundledContract();
const { model, fixtures } = bundled;
const [firstLot] = fixtures.lots.keys();
const unknownLot = Math.max(...fixtures.lots.keys()) + 1000;

/** Runs `run` and returns the problem it threw (asserting its kind). */
function thrown(run: () => unknown, kind: ProblemKind): ProblemError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ProblemError, String(error));
    assert.equal(error.kind, kind, `${error.kind.type}: ${error.detail}`);
    return error;
  }
  assert.fail(`no ${kind.type} problem`);
}

describe('mock/handlers', () => {
  describe('order info', () => {
    const bodies = orderBodies(fixtures);

    it("serves each fixture order's JSON byte for byte (JSON.stringify of the file's value)", () => {
      assert.equal(bodies.size, fixtures.files.length);
      for (const file of fixtures.files) {
        const value = JSON.parse(readFileSync(file, 'utf8')) as JsonObject;
        const header = value[model.order.orderMember] as JsonObject;
        const number = header[model.order.orderNumberMember] as string;
        assert.deepEqual(orderInfo(bodies, number), Buffer.from(JSON.stringify(value)), file);
      }
    });

    it('serializes once: the same buffer for every request', () => {
      const [number = ''] = fixtures.orders.keys();
      assert.equal(orderInfo(bodies, number), orderInfo(bodies, number));
    });

    it('answers an unknown number with 404 order-not-found, the number quoted (at most 200 characters)', () => {
      const error = thrown(() => orderInfo(bodies, 'NOPE-1'), PROBLEMS.orderNotFound);
      assert.equal(error.kind.status, 404);
      assert.equal(error.detail, 'No order has the number "NOPE-1"; GET /__mock/orders lists the known ones.');
      const long = thrown(() => orderInfo(bodies, `"${'9'.repeat(300)}`), PROBLEMS.orderNotFound);
      assert.ok(long.detail.startsWith(`No order has the number ${JSON.stringify(`"${'9'.repeat(199)}`)};`), long.detail);
    });
  });

  for (const id of model.createIds) {
    describe(id, () => {
      const createModel = model.create(id);
      const op: CreateOperation = bundled.createOperation(id);
      const lotMember = op.model.lotMember ?? '';
      const example = createModel.requestExample as JsonObject;
      /** The contract's example body naming a fixture lot (a fresh object each time). */
      const valid = (changes: JsonObject = {}): JsonObject => ({ ...example, [lotMember]: firstLot ?? 0, ...changes });
      /** A value of a readOnly member's own type. */
      const ownType = (name: string): JsonValue =>
        createModel.members.find((m) => m.name === name)?.type === 'integer' ? 7 : '2026-01-02T03:04:05Z';

      describe('checkCreateBody', () => {
        it('passes a valid body, unchanged', () => {
          assert.ok(example, 'the contract gives a request example');
          assert.deepEqual(checkCreateBody(op, valid(), fixtures.lots), valid());
        });

        it('drops the readOnly members a client sends with their own type', () => {
          assert.ok(op.model.readOnly.length > 0);
          const sent = valid(Object.fromEntries(op.model.readOnly.map((name) => [name, ownType(name)])));
          const checked = checkCreateBody(op, sent, fixtures.lots);
          for (const name of op.model.readOnly) assert.ok(!Object.hasOwn(checked, name), name);
          assert.deepEqual(checked, valid());
        });

        it('refuses a readOnly member of the wrong type with 400, its pointer named', () => {
          const [name = ''] = op.model.readOnly;
          const error = thrown(() => checkCreateBody(op, valid({ [name]: [] }), fixtures.lots), PROBLEMS.invalidBody);
          assert.deepEqual(
            error.errors?.map((e) => e.pointer),
            [`/${name}`],
          );
        });

        it('refuses a body that is not an object with 400, pointer ""', () => {
          const cases: [unknown, string][] = [
            [[], 'an array'],
            [null, 'null'],
            ['x', 'a string'],
            [1, 'a number'],
            [true, 'a boolean'],
          ];
          for (const [body, kind] of cases) {
            const error = thrown(() => checkCreateBody(op, body, fixtures.lots), PROBLEMS.invalidBody);
            assert.equal(error.detail, `The request body must be a JSON object, not ${kind}.`);
            assert.deepEqual(error.errors, [{ pointer: '', detail: 'must be of type object' }]);
          }
        });

        it('refuses an empty object with one error per required member, each pointing at it', () => {
          const required = createModel.members.filter((m) => m.required).map((m) => `/${m.name}`);
          const error = thrown(() => checkCreateBody(op, {}, fixtures.lots), PROBLEMS.invalidBody);
          assert.deepEqual(error.errors?.map((e) => e.pointer).sort(), [...required].sort());
          const n = required.length;
          assert.match(error.detail, new RegExp(`^The request body has ${n} problem${n === 1 ? '' : 's'}: `));
        });

        it('summarizes at most 5 problems in the detail; every one is in errors', () => {
          const wrong = Object.fromEntries(createModel.members.map((m) => [m.name, { not: 'a value' }]));
          const error = thrown(() => checkCreateBody(op, wrong, fixtures.lots), PROBLEMS.invalidBody);
          const errors = error.errors ?? [];
          assert.ok(errors.length > 5, `${errors.length} errors`);
          for (const member of createModel.members)
            assert.ok(
              errors.some((e) => e.pointer === `/${member.name}`),
              member.name,
            );
          assert.ok(error.detail.endsWith(`; and ${errors.length - 5} more (every one is in "errors").`), error.detail);
          assert.equal(error.detail.split('; ').length, 6);
        });

        it('refuses an unknown lot with 422 unknown-lot, pointing at the lot member', () => {
          const error = thrown(() => checkCreateBody(op, valid({ [lotMember]: unknownLot }), fixtures.lots), PROBLEMS.unknownLot);
          assert.equal(error.kind.status, 422);
          assert.equal(error.detail, `No lot has the id ${unknownLot}; GET /__mock/lots lists the known lots.`);
          assert.deepEqual(error.errors, [{ pointer: `/${lotMember}`, detail: `no lot has the id ${unknownLot}` }]);
        });
      });

      describe('create (the record)', () => {
        let store: MemoryStore;
        let ctx: CreateContext;
        beforeEach(async () => {
          store = await bundled.memoryStore();
          ctx = { store, lots: fixtures.lots, log: () => undefined };
        });
        afterEach(() => store.close());

        /** What the record of the n-th create of `input` must be, from the record model's rules. */
        function expected(input: JsonObject, n: number, record: JsonObject): JsonObject {
          const lot = fixtures.lots.get(input[lotMember] as number)?.lot as unknown as JsonObject;
          const out: JsonObject = {};
          for (const { name, rule } of op.model.fields) {
            if (rule.kind === 'id') out[name] = n;
            else if (rule.kind === 'timestamp') {
              assert.match(JSON.stringify(record[name] ?? null), /^"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"$/, name);
              out[name] = record[name] ?? null;
            } else if (Object.hasOwn(input, name)) out[name] = input[name] ?? null;
            else if (rule.kind === 'default') out[name] = rule.value;
            else if (rule.kind === 'from-lot') out[name] = lot[rule.member] ?? null;
            else if (rule.kind === 'sequence') out[name] = formatSequence(rule.prefix, rule.width, n);
          }
          return out;
        }

        it("records the required members, the server's ids and timestamps and the contract's defaults, in contract order", async () => {
          const input = Object.fromEntries(createModel.members.filter((m) => m.required).map((m) => [m.name, valid()[m.name] ?? null]));
          for (const n of [1, 2]) {
            const json = await create(ctx, op, 'default', checkCreateBody(op, { ...input }, fixtures.lots));
            const record = JSON.parse(json) as JsonObject;
            const want = expected(input, n, record);
            assert.equal(json, JSON.stringify(want), `create ${n}`);
          }
        });

        it('keeps the values a client sent over the defaults', async () => {
          const full = valid();
          for (const member of createModel.members) {
            if (member.readOnly || Object.hasOwn(full, member.name)) continue;
            full[member.name] = member.type === 'boolean' ? true : member.type === 'string' ? 'client' : 1;
          }
          const json = await create(ctx, op, 'default', checkCreateBody(op, { ...full }, fixtures.lots));
          assert.equal(json, JSON.stringify(expected(full, 1, JSON.parse(json) as JsonObject)));
        });

        it('counts ids per session', async () => {
          const idField = op.model.fields.find((f) => f.rule.kind === 'id')?.name ?? '';
          const idOf = async (session: string) =>
            (JSON.parse(await create(ctx, op, session, checkCreateBody(op, valid(), fixtures.lots))) as JsonObject)[idField];
          assert.equal(await idOf('default'), 1);
          assert.equal(await idOf('default'), 2);
          assert.equal(await idOf('other'), 1);
        });
      });
    });
  }
});
