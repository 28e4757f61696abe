/**
 * Fixture orders: full order-info answers kept as JSON files, validated against the contract
 * (`strict`) before anything serves them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { components } from './generated/types.js';
import { compileContract, type CompiledContract } from './schemas.js';
import { isObject, readContract, resolvePointer, type JsonObject } from './document.js';
import { operationsModel, type OperationsModel, type ResourceModel } from './operations-model.js';
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

/** A loaded fixture set: key (the order number) → record (the order info); lot id → the lot and its record's key. */
export interface FixtureSet {
  orders: Map<string, JsonObject>;
  lots: Map<number, { lot: JsonObject; orderNumber: string }>;
  files: string[];
}

/** The records fixtures hold: the resource a read serves from fixtures (the order), read from the operations model. */
export function fixtureResource(model: OperationsModel): ResourceModel | undefined {
  const read = model.orderInfo ?? model.operations.find((op) => op.role === 'fixture-read');
  return read?.resource !== undefined ? model.resource(read.resource) : undefined;
}

/**
 * Reads every `*.json` file of `dir`, validates it as a `strict` record of the fixture resource (an
 * order-info answer), and checks the set: keys (order numbers) unique, lot ids unique across records.
 * Throws a FixtureError listing every problem.
 */
export function loadFixtures(dir: string = FIXTURES_DIR, contract?: CompiledContract, model?: OperationsModel): FixtureSet {
  const compiled = contract ?? compileContract(readContract(), 'strict');
  const api = model ?? operationsModel(compiled.document);
  const resource = fixtureResource(api);
  if (resource === undefined) throw new FixtureError([{ file: dir, reason: 'the contract has no read of records served from fixtures' }]);
  const validate = compiled.validator({ $ref: `#/components/schemas/${resource.schema}` });
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
  const lots = api.order;
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
    if (errors.length > 0 || !isObject(value)) {
      for (const error of errors) problems.push({ file, pointer: error.pointer, reason: error.detail });
      continue;
    }
    const key = resolvePointer(value, `#${resource.keyPointer}`);
    if (typeof key !== 'string' && typeof key !== 'number') {
      problems.push({ file, pointer: resource.keyPointer, reason: 'the record has no key here (a string or a number)' });
      continue;
    }
    const number = String(key);
    if (set.orders.has(number)) {
      const keyName = resource.keyPointer.split('/').pop() ?? 'key';
      problems.push({ file, pointer: resource.keyPointer, reason: `the ${keyName} "${number}" is already used by another fixture` });
      continue;
    }
    const list = lots !== undefined ? value[lots.lotsMember] : undefined;
    (Array.isArray(list) ? list : []).forEach((lot, index) => {
      const id = isObject(lot) ? lot[lots?.lotIdMember ?? ''] : undefined;
      if (!isObject(lot) || typeof id !== 'number') return;
      const other = set.lots.get(id);
      if (other)
        problems.push({
          file,
          pointer: `/${lots?.lotsMember ?? ''}/${index}/${lots?.lotIdMember ?? ''}`,
          reason: `the lot id ${id} is already used by order "${other.orderNumber}"`,
        });
      else set.lots.set(id, { lot, orderNumber: number });
    });
    set.orders.set(number, value);
    set.files.push(file);
  }
  if (problems.length > 0) throw new FixtureError(problems);
  return set;
}
