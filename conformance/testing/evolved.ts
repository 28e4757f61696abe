/**
 * Evolved contracts for the suite's tests: the bundled contract with one change of the kind an API
 * team makes between versions (one per class of change: `EVOLUTIONS` below). Each is a plain edit of the
 * document; no code of the suite knows about any of them.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isObject, readContract, type JsonObject, type OpenApiDocument } from '../../contract/document.js';
import type { Level } from '../../contract/levels.js';

export interface Evolution {
  name: string;
  /** The level at which a server still on the old contract must fail the evolved suite. */
  level: Level;
  change(schemas: JsonObject): void;
}

function object(parent: JsonObject, key: string): JsonObject {
  const value = parent[key];
  if (!isObject(value)) throw new Error(`the contract has no object at ${key}`);
  return value;
}

const properties = (schemas: JsonObject, name: string): JsonObject => object(object(schemas, name), 'properties');

function required(schemas: JsonObject, name: string, member: string): void {
  const schema = object(schemas, name);
  const list = Array.isArray(schema['required']) ? schema['required'] : [];
  schema['required'] = [...list, member];
}

export const EVOLUTIONS: readonly Evolution[] = [
  {
    name: 'a new optional member with bounds',
    level: 'spec',
    change: (s) => {
      properties(s, 'LotTransferFields')['priority'] = { type: 'integer', minimum: 1, maximum: 5 };
    },
  },
  {
    name: 'a new required member with an enum',
    level: 'spec',
    change: (s) => {
      properties(s, 'TestSampleFields')['sample_kind'] = { type: 'string', enum: ['RAW', 'RETAINED', 'REFERENCE'] };
      required(s, 'TestSampleCreate', 'sample_kind');
      required(s, 'TestSample', 'sample_kind');
    },
  },
  {
    name: 'a maxLength on a string',
    level: 'spec',
    change: (s) => {
      object(s, 'ScanCode')['maxLength'] = 40;
    },
  },
  {
    name: 'a pattern on the scan codes',
    level: 'spec',
    change: (s) => {
      object(s, 'ScanCode')['pattern'] = '^[A-Z0-9][A-Z0-9-]*$';
    },
  },
  {
    name: 'a maximum on the amount',
    level: 'spec',
    change: (s) => {
      properties(s, 'LotTransferFields')['amount'] = {
        type: 'number',
        'x-profile': ['exclusiveMinimum'],
        exclusiveMinimum: 0,
        maximum: 10000,
      };
    },
  },
  {
    name: 'a new date member',
    level: 'spec',
    change: (s) => {
      properties(s, 'LotTransferFields')['transfer_date'] = { type: 'string', format: 'date' };
    },
  },
  {
    name: 'an enum on a status',
    level: 'spec',
    change: (s) => {
      properties(s, 'TestSampleFields')['status'] = {
        type: 'string',
        'x-profile': ['default'],
        default: 'NEW',
        enum: ['NEW', 'IN_TEST', 'RELEASED', 'BLOCKED'],
      };
    },
  },
];

/** The bundled contract with the evolution applied (a fresh copy). */
export function evolvedContract(evolution: Evolution): OpenApiDocument {
  const document = structuredClone(readContract());
  evolution.change(object(object(document, 'components'), 'schemas'));
  return document;
}

/** Writes the evolved contract to a temporary file (what `--contract FILE` and `goods-mock --contract FILE` read). */
export function writeEvolvedContract(evolution: Evolution): string {
  const dir = mkdtempSync(join(tmpdir(), 'goods-evolved-'));
  const path = join(dir, 'openapi.json');
  writeFileSync(path, JSON.stringify(evolvedContract(evolution), null, 2));
  return path;
}
