/**
 * Fixture orders: full order-info answers kept as JSON files, validated against the contract
 * (`strict`) before anything serves them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { components } from './generated/types.js';
import { compileContract, type CompiledContract } from './schemas.js';
import { readContract } from './document.js';
import { FIXTURES_DIR, PROJECT_ROOT } from './paths.js';
import { messageOf } from '../util/errors.js';

export type OrderInfo = components['schemas']['OrderInfo'];

/** One problem in one fixture file. */
export interface FixtureProblem {
  file: string;
  /** RFC 6901 JSON Pointer into the file (`""` is the whole document); absent for a problem of the file itself. */
  pointer?: string;
  reason: string;
}

/** Thrown when fixtures cannot be loaded; `problems` lists every problem found, in every file. */
export class FixtureError extends Error {
  constructor(readonly problems: FixtureProblem[]) {
    super(
      `invalid fixture orders (fix the files or point --fixtures at another folder):\n` +
        problems
          .map((p) => `  ${p.file}${p.pointer === undefined ? '' : ` at ${p.pointer || 'the document root'}`}: ${p.reason}`)
          .join('\n'),
    );
    this.name = 'FixtureError';
  }
}

/** A loaded fixture set: order number → order info; lot id → the lot and its order. */
export interface FixtureSet {
  orders: Map<string, OrderInfo>;
  lots: Map<number, { lot: OrderInfo['lots'][number]; orderNumber: string }>;
  files: string[];
}

/**
 * Reads every `*.json` file of `dir`, validates it as a `strict` order-info answer, and checks the
 * set: order numbers unique, lot ids unique across orders. Throws a FixtureError listing every problem.
 */
export function loadFixtures(dir: string = FIXTURES_DIR, contract?: CompiledContract): FixtureSet {
  const compiled = contract ?? compileContract(readContract(), 'strict');
  const validate = compiled.validator({ $ref: '#/components/schemas/OrderInfo' });
  const problems: FixtureProblem[] = [];
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .sort();
  } catch (error) {
    throw new FixtureError([{ file: dir, reason: `cannot read the folder: ${messageOf(error)}` }]);
  }
  if (names.length === 0) throw new FixtureError([{ file: dir, reason: 'the folder has no *.json fixture orders' }]);
  const set: FixtureSet = { orders: new Map(), lots: new Map(), files: [] };
  for (const name of names) {
    const path = join(dir, name);
    const file = relative(PROJECT_ROOT, path).startsWith('..') ? path : relative(PROJECT_ROOT, path);
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      problems.push({ file, reason: `not valid JSON: ${messageOf(error)}` });
      continue;
    }
    const errors = validate(value);
    if (errors.length > 0) {
      for (const error of errors) problems.push({ file, pointer: error.pointer, reason: error.detail });
      continue;
    }
    const order = value as OrderInfo;
    const number = order.order.orderNumber;
    if (set.orders.has(number)) {
      problems.push({ file, pointer: '/order/orderNumber', reason: `the order number "${number}" is already used by another fixture` });
      continue;
    }
    order.lots.forEach((lot, index) => {
      const other = set.lots.get(lot.id);
      if (other)
        problems.push({
          file,
          pointer: `/lots/${index}/id`,
          reason: `the lot id ${lot.id} is already used by order "${other.orderNumber}"`,
        });
      else set.lots.set(lot.id, { lot, orderNumber: number });
    });
    set.orders.set(number, order);
    set.files.push(file);
  }
  if (problems.length > 0) throw new FixtureError(problems);
  return set;
}
