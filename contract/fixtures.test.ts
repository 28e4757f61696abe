import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readContract, type JsonObject } from './document.js';
import { FixtureError, loadFixtures, type FixtureProblem, type OrderInfo } from './fixtures.js';
import { FIXTURES_DIR } from './paths.js';
import { compileContract } from './schemas.js';

/** The problems of the FixtureError that `run` throws (fails when it throws nothing else). */
function problemsOf(run: () => unknown): FixtureProblem[] {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof FixtureError, `expected a FixtureError, got ${String(error)}`);
    assert.ok(error.message.includes('invalid fixture orders'));
    return error.problems;
  }
  assert.fail('expected a FixtureError, nothing was thrown');
}

function readFixture(name: string): OrderInfo {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, name), 'utf8')) as OrderInfo;
}

/** The bundled fixtures as the generated order-info type (they were validated against it when loaded). */
const typed = (orders: Map<string, JsonObject>): OrderInfo[] => [...orders.values()] as unknown as OrderInfo[];
const typedEntries = (orders: Map<string, JsonObject>): [string, OrderInfo][] => [...orders] as unknown as [string, OrderInfo][];

describe('fixture orders (contract/fixtures.ts)', () => {
  const strict = compileContract(readContract(), 'strict');
  let tmp: string;
  let case_ = 0;
  /** A fresh folder holding the given files (name → JSON value or raw text). */
  const folder = (files: Record<string, unknown>): string => {
    const dir = join(tmp, `case-${++case_}`);
    mkdirSync(dir);
    for (const [name, value] of Object.entries(files))
      writeFileSync(join(dir, name), typeof value === 'string' ? value : JSON.stringify(value));
    return dir;
  };
  before(() => {
    tmp = mkdtempSync(join(tmpdir(), 'fixtures-'));
  });
  after(() => {
    rmSync(tmp, { recursive: true, force: true });
  });

  describe('the committed set (fixtures/orders)', () => {
    it('every file is a valid strict order-info answer', () => {
      const validate = strict.validator({ $ref: '#/components/schemas/OrderInfo' });
      const names = readdirSync(FIXTURES_DIR).filter((n) => n.endsWith('.json'));
      assert.ok(names.length >= 3, `at least three fixture orders, found ${names.length}`);
      for (const name of names) assert.deepEqual(validate(readFixture(name)), [], name);
      const set = loadFixtures(FIXTURES_DIR, strict);
      assert.equal(set.orders.size, names.length);
      assert.equal(set.files.length, names.length);
    });

    it('covers the required shapes: several lots and charges; empty containers and charges; a number that needs URL-encoding', () => {
      const orders = typed(loadFixtures(FIXTURES_DIR, strict).orders);
      assert.ok(orders.length >= 3);
      assert.ok(
        orders.some((o) => o.lots.length >= 2 && o.charges.length >= 2),
        'one order with several lots and charges',
      );
      assert.ok(
        orders.some((o) => o.containers.length === 0 && o.charges.length === 0),
        'one order with empty containers and charges',
      );
      assert.ok(
        orders.some((o) => encodeURIComponent(o.order.orderNumber) !== o.order.orderNumber),
        'one order number that needs URL-encoding',
      );
    });

    it('indexes every lot by id with its order, lot ids unique across the set', () => {
      const set = loadFixtures(FIXTURES_DIR, strict);
      const lotCount = typed(set.orders).reduce((sum, o) => sum + o.lots.length, 0);
      assert.equal(set.lots.size, lotCount);
      for (const [number, order] of typedEntries(set.orders)) {
        assert.equal(order.order.orderNumber, number);
        for (const lot of order.lots) assert.equal(set.lots.get(lot.id)?.orderNumber, number);
      }
    });

    it('loads with the default contract when none is given', () => {
      assert.equal(loadFixtures().orders.size, loadFixtures(FIXTURES_DIR, strict).orders.size);
    });
  });

  describe('broken fixtures are reported with file, JSON pointer and reason', () => {
    it('a schema violation names the file, the pointer and the reason; other files are still checked', () => {
      const broken = readFixture('ORD-2026-0001.json');
      const lot = broken.lots[1] as unknown as Record<string, unknown>;
      lot['quantity'] = 'many';
      delete lot['unit'];
      broken.order.deliveryDate = '2026-02-30';
      const otherBroken = readFixture('ORD-2026-0002.json') as unknown as Record<string, unknown>;
      delete otherBroken['charges'];
      const dir = folder({ 'a.json': broken, 'b.json': otherBroken });
      const problems = problemsOf(() => loadFixtures(dir, strict));
      const file = join(dir, 'a.json');
      assert.deepEqual(
        problems.filter((p) => p.file === file).sort((x, y) => (x.pointer ?? '').localeCompare(y.pointer ?? '')),
        [
          { file, pointer: '/lots/1/quantity', reason: 'must be of type number' },
          { file, pointer: '/lots/1/unit', reason: 'is required' },
          { file, pointer: '/order/deliveryDate', reason: 'must be a date string' },
        ],
      );
      assert.deepEqual(
        problems.filter((p) => p.file !== file),
        [{ file: join(dir, 'b.json'), pointer: '/charges', reason: 'is required' }],
      );
    });

    it('the error message lists every problem with file and pointer', () => {
      const broken = readFixture('WE-2026-0003.json') as unknown as Record<string, unknown>;
      broken['lots'] = 'none';
      const dir = folder({ 'x.json': broken });
      try {
        loadFixtures(dir, strict);
        assert.fail('expected a FixtureError');
      } catch (error) {
        assert.ok(error instanceof FixtureError);
        assert.match(error.message, /x\.json at \/lots: must be of type array/);
      }
    });

    it('a file that is not JSON is reported', () => {
      const dir = folder({ 'ok.json': readFixture('ORD-2026-0001.json'), 'bad.json': '{"order": ' });
      const problems = problemsOf(() => loadFixtures(dir, strict));
      assert.equal(problems.length, 1);
      assert.equal(problems[0]?.file, join(dir, 'bad.json'));
      assert.match(problems[0]?.reason ?? '', /^not valid JSON: /);
    });

    it('a non-object document is reported at the root pointer', () => {
      const dir = folder({ 'list.json': [1, 2] });
      assert.deepEqual(
        problemsOf(() => loadFixtures(dir, strict)),
        [{ file: join(dir, 'list.json'), pointer: '', reason: 'must be of type object' }],
      );
    });

    it('duplicate order numbers across files are reported', () => {
      const first = readFixture('ORD-2026-0001.json');
      const second = readFixture('ORD-2026-0002.json');
      second.order.orderNumber = first.order.orderNumber;
      const dir = folder({ '1.json': first, '2.json': second });
      assert.deepEqual(
        problemsOf(() => loadFixtures(dir, strict)),
        [
          {
            file: join(dir, '2.json'),
            pointer: '/order/orderNumber',
            reason: `the orderNumber "${first.order.orderNumber}" is already used by another fixture`,
          },
        ],
      );
    });

    it('duplicate lot ids across files are reported', () => {
      const first = readFixture('ORD-2026-0001.json');
      const second = readFixture('WE-2026-0003.json');
      const reused = first.lots[2]?.id;
      assert.ok(reused !== undefined && second.lots[1]);
      second.lots[1].id = reused;
      const dir = folder({ '1.json': first, '2.json': second });
      assert.deepEqual(
        problemsOf(() => loadFixtures(dir, strict)),
        [
          {
            file: join(dir, '2.json'),
            pointer: '/lots/1/id',
            reason: `the lot id ${reused} is already used by order "${first.order.orderNumber}"`,
          },
        ],
      );
    });

    it('an empty folder and a missing folder are reported', () => {
      const empty = folder({ 'notes.txt': 'not a fixture' });
      assert.deepEqual(
        problemsOf(() => loadFixtures(empty, strict)),
        [{ file: empty, reason: 'the folder has no *.json fixture orders' }],
      );
      const missing = join(tmp, 'no-such-folder');
      const problems = problemsOf(() => loadFixtures(missing, strict));
      assert.equal(problems.length, 1);
      assert.equal(problems[0]?.file, missing);
      assert.match(problems[0]?.reason ?? '', /^cannot read the folder: .*ENOENT/);
    });

    it('a copy of the committed set loads unchanged from another folder', () => {
      const dir = join(tmp, 'copy');
      mkdirSync(dir);
      for (const name of readdirSync(FIXTURES_DIR)) copyFileSync(join(FIXTURES_DIR, name), join(dir, name));
      assert.deepEqual([...loadFixtures(dir, strict).orders.keys()], [...loadFixtures(FIXTURES_DIR, strict).orders.keys()]);
    });
  });
});
