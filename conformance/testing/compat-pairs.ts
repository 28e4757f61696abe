/**
 * Pairs of contracts for the tests of `goods-conformance compat`: the bundled contract, or one of the
 * evolved contracts of `evolved.ts`, before and after one edit of the kind an API team makes, each with
 * the changes the static comparison must find (classified for clients and servers, with their level)
 * and what the proof runs must say about each. One pair per class of change, the subtle ones included.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isObject, readContract, type JsonObject, type OpenApiDocument } from '../../contract/document.js';
import type { ChangeLevel, Effect, ProofStatus } from '../compat/model.js';
import { EVOLUTIONS, type Evolution } from './evolved.js';

export type Edit = (doc: OpenApiDocument) => void;

export interface ExpectedChange {
  id: string;
  clients: Effect;
  servers: Effect;
  level: ChangeLevel;
  /** What the proof runs (at strict) say, per side (absent: that side's run cannot be made). */
  proof: { clients?: ProofStatus; servers?: ProofStatus };
}

export interface CompatPair {
  /** The class of change the pair shows. */
  name: string;
  old: Edit[];
  new: Edit[];
  changes: ExpectedChange[];
  /** The mock cannot serve this contract of the pair (the proof's run on it cannot be made: exit 2). */
  mockRefuses?: 'old' | 'new';
}

function object(parent: JsonObject, key: string): JsonObject {
  const value = parent[key];
  if (!isObject(value)) throw new Error(`the contract has no object at ${key}`);
  return value;
}

const schemas = (doc: OpenApiDocument): JsonObject => object(object(doc, 'components'), 'schemas');
/** The component schema `name` of a contract (to edit it). */
export const schemaNamed = (doc: OpenApiDocument, name: string): JsonObject => object(schemas(doc), name);
const property = (doc: OpenApiDocument, schema: string, member: string): JsonObject =>
  object(object(object(schemas(doc), schema), 'properties'), member);

function evolution(name: string): Edit {
  const found: Evolution | undefined = EVOLUTIONS.find((e) => e.name === name);
  if (!found) throw new Error(`no evolution named "${name}"`);
  return (doc) => found.change(schemas(doc));
}

function setRequired(doc: OpenApiDocument, schema: string, member: string, required: boolean): void {
  const node = object(schemas(doc), schema);
  const list = Array.isArray(node['required']) ? node['required'].filter((m) => m !== member) : [];
  node['required'] = required ? [...list, member] : list;
}

function dropKeyword(node: JsonObject, keyword: string): void {
  delete node[keyword];
  const marked = node['x-profile'];
  if (Array.isArray(marked)) {
    const left = marked.filter((k) => k !== keyword);
    if (left.length > 0) node['x-profile'] = left;
    else delete node['x-profile'];
  }
}

/** The path item of an operation, found by its operationId. */
function operation(doc: OpenApiDocument, operationId: string): { path: string; method: string; node: JsonObject } {
  for (const [path, item] of Object.entries(object(doc, 'paths'))) {
    if (!isObject(item)) continue;
    for (const [method, node] of Object.entries(item))
      if (isObject(node) && node['operationId'] === operationId) return { path, method, node };
  }
  throw new Error(`no operation ${operationId}`);
}

const maximumOnAmount = evolution('a maximum on the amount');
const statusEnum = evolution('an enum on a status');
const withoutBlocked: Edit = (doc) => {
  const status = property(doc, 'TestSampleFields', 'status');
  status['enum'] = ['NEW', 'IN_TEST', 'RELEASED'];
};
const statusRequired: Edit = (doc) => setRequired(doc, 'TestSampleCreate', 'status', true);
const notesRemoved: Edit = (doc) => {
  delete object(object(schemas(doc), 'TestSampleFields'), 'properties')['notes'];
  setRequired(doc, 'TestSample', 'notes', false);
};
const notesOptionalWithoutDefault: Edit = (doc) => {
  dropKeyword(property(doc, 'TestSampleFields', 'notes'), 'default');
  setRequired(doc, 'TestSample', 'notes', false);
};
const userIdAsString: Edit = (doc) => {
  const member = property(doc, 'TestSampleFields', 'fk_user_id');
  member['type'] = 'string';
  dropKeyword(member, 'minimum');
};
const sampleAnswered200: Edit = (doc) => {
  const responses = object(operation(doc, 'createTestSample').node, 'responses');
  responses['200'] = object(responses, '201');
  delete responses['201'];
};
const transferIdWritable: Edit = (doc) => dropKeyword(property(doc, 'LotTransferFields', 'id'), 'readOnly');
const statusDefaultOpen: Edit = (doc) => {
  property(doc, 'TestSampleFields', 'status')['default'] = 'OPEN';
};
const lotBatch: Edit = (doc) => {
  object(object(schemas(doc), 'Lot'), 'properties')['batch'] = { type: 'string' };
};
const orderRegionRequired: Edit = (doc) => {
  object(object(schemas(doc), 'Order'), 'properties')['region'] = { type: 'string' };
  setRequired(doc, 'Order', 'region', true);
};
const sampleOperationRemoved: Edit = (doc) => {
  const { path } = operation(doc, 'createTestSample');
  delete object(doc, 'paths')[path];
};

const securitySchemesOf = (doc: OpenApiDocument): JsonObject => object(object(doc, 'components'), 'securitySchemes');
/** An API-key scheme (`apiKeyAuth`, header `X-API-Key`) declared, used by no operation yet. */
const apiKeyDeclared: Edit = (doc) => {
  securitySchemesOf(doc)['apiKeyAuth'] = { type: 'apiKey', in: 'header', name: 'X-API-Key' };
};
/** The test-sample create's own security requirements (its `security`). */
const sampleSecurity =
  (requirements: JsonObject[]): Edit =>
  (doc) => {
    operation(doc, 'createTestSample').node['security'] = requirements;
  };
const sampleByKey = sampleSecurity([{ apiKeyAuth: [] }]);
const sampleByBearerAndKey = sampleSecurity([{ bearerAuth: [], apiKeyAuth: [] }]);
const sampleByBearerOrKey = sampleSecurity([{ bearerAuth: [] }, { apiKeyAuth: [] }]);
/** The test-sample create's security a profile decision (`x-profile: [security]` on the operation). */
const sampleSecurityProfile: Edit = (doc) => {
  operation(doc, 'createTestSample').node['x-profile'] = ['security'];
};
const apiKeyInQuery: Edit = (doc) => {
  object(securitySchemesOf(doc), 'apiKeyAuth')['in'] = 'query';
};
const apiKeyHeaderRenamed: Edit = (doc) => {
  object(securitySchemesOf(doc), 'apiKeyAuth')['name'] = 'X-Goods-Key';
};
const bearerToBasic: Edit = (doc) => {
  object(securitySchemesOf(doc), 'bearerAuth')['scheme'] = 'basic';
};
/** The bearer scheme renamed (`jwtAuth`), its credential sent as before. */
const bearerRenamed: Edit = (doc) => {
  const schemes = securitySchemesOf(doc);
  schemes['jwtAuth'] = object(schemes, 'bearerAuth');
  delete schemes['bearerAuth'];
  doc['security'] = [{ jwtAuth: [] }];
};

const confirmed = { clients: 'confirmed', servers: 'confirmed' } as const;
const agree = { clients: 'agrees', servers: 'agrees' } as const;

export const COMPAT_PAIRS: readonly CompatPair[] = [
  {
    name: 'a request bound narrowed (a maximum added)',
    old: [],
    new: [maximumOnAmount],
    changes: [
      { id: 'createLotTransfer request /amount maximum', clients: 'breaking', servers: 'breaking', level: 'spec', proof: confirmed },
      {
        id: 'createLotTransfer answer /amount maximum',
        clients: 'compatible',
        servers: 'breaking',
        level: 'spec',
        proof: { clients: 'agrees', servers: 'confirmed' },
      },
    ],
  },
  {
    name: 'a request bound widened (the maximum removed)',
    old: [maximumOnAmount],
    new: [],
    changes: [
      {
        id: 'createLotTransfer request /amount maximum',
        clients: 'compatible',
        servers: 'breaking',
        level: 'spec',
        proof: { clients: 'agrees', servers: 'confirmed' },
      },
      // The answer echoes the amount sent: wider only for amounts a v1 client never sends.
      { id: 'createLotTransfer answer /amount maximum', clients: 'compatible', servers: 'compatible', level: 'spec', proof: agree },
    ],
  },
  {
    name: 'a request member newly required',
    old: [],
    new: [statusRequired],
    changes: [
      { id: 'createTestSample request /status required', clients: 'breaking', servers: 'breaking', level: 'profile', proof: confirmed },
    ],
  },
  {
    name: 'an enum value removed from a request',
    old: [statusEnum],
    new: [statusEnum, withoutBlocked],
    changes: [
      {
        id: 'createTestSample request /status enum',
        clients: 'breaking',
        servers: 'breaking',
        level: 'spec',
        // The new suite does not know the removed value, so it never sends it to the v1 server.
        proof: { clients: 'confirmed', servers: 'not-shown' },
      },
      {
        id: 'createTestSample answer /status enum',
        clients: 'compatible',
        servers: 'breaking',
        level: 'spec',
        proof: { clients: 'agrees', servers: 'not-shown' },
      },
    ],
  },
  {
    name: 'a request enum widened',
    old: [statusEnum, withoutBlocked],
    new: [statusEnum],
    changes: [
      {
        id: 'createTestSample request /status enum',
        clients: 'compatible',
        servers: 'breaking',
        level: 'spec',
        proof: { clients: 'agrees', servers: 'confirmed' },
      },
      { id: 'createTestSample answer /status enum', clients: 'compatible', servers: 'compatible', level: 'spec', proof: agree },
    ],
  },
  {
    name: 'a member removed from the request and the answer',
    old: [],
    new: [notesRemoved],
    changes: [
      {
        id: 'createTestSample request /notes member',
        clients: 'breaking',
        servers: 'breaking',
        level: 'spec',
        // The new suite's unknown-member case names a member of its own, not the removed one.
        proof: { clients: 'confirmed', servers: 'not-shown' },
      },
      {
        id: 'createTestSample answer /notes member',
        clients: 'breaking',
        servers: 'compatible',
        level: 'spec',
        proof: { clients: 'confirmed', servers: 'agrees' },
      },
    ],
  },
  {
    name: 'an answer member made optional (and its default removed)',
    old: [],
    new: [notesOptionalWithoutDefault],
    changes: [
      {
        id: 'createTestSample request /notes default',
        clients: 'breaking',
        servers: 'compatible',
        level: 'profile',
        proof: { clients: 'confirmed', servers: 'agrees' },
      },
      {
        id: 'createTestSample answer /notes required',
        clients: 'breaking',
        servers: 'compatible',
        level: 'profile',
        proof: { clients: 'confirmed', servers: 'agrees' },
      },
    ],
  },
  {
    name: 'an answer member newly required (with a default)',
    old: [notesOptionalWithoutDefault],
    new: [],
    changes: [
      {
        id: 'createTestSample request /notes default',
        clients: 'compatible',
        servers: 'breaking',
        level: 'profile',
        proof: { clients: 'agrees', servers: 'confirmed' },
      },
      {
        id: 'createTestSample answer /notes required',
        clients: 'compatible',
        servers: 'breaking',
        level: 'profile',
        proof: { clients: 'agrees', servers: 'confirmed' },
      },
    ],
  },
  {
    name: 'a type changed (integer to string)',
    old: [],
    new: [userIdAsString],
    changes: [
      { id: 'createTestSample request /fk_user_id type', clients: 'breaking', servers: 'breaking', level: 'spec', proof: confirmed },
      // Confirmed with the type change: the failures name the member, not the keyword.
      {
        id: 'createTestSample request /fk_user_id minimum',
        clients: 'compatible',
        servers: 'breaking',
        level: 'profile',
        proof: { clients: 'agrees', servers: 'confirmed' },
      },
      { id: 'createTestSample answer /fk_user_id type', clients: 'breaking', servers: 'breaking', level: 'spec', proof: confirmed },
      { id: 'createTestSample answer /fk_user_id minimum', clients: 'compatible', servers: 'compatible', level: 'profile', proof: agree },
    ],
  },
  {
    name: 'a success status changed',
    old: [],
    new: [sampleAnswered200],
    changes: [
      {
        id: 'createTestSample operation success-status',
        clients: 'breaking',
        servers: 'breaking',
        level: 'profile',
        proof: { clients: 'confirmed', servers: 'confirmed' },
      },
    ],
  },
  {
    name: 'a read-only member made writable',
    old: [],
    new: [transferIdWritable],
    changes: [
      { id: 'createLotTransfer request /id readOnly', clients: 'breaking', servers: 'breaking', level: 'profile', proof: confirmed },
    ],
  },
  {
    name: 'a default changed',
    old: [],
    new: [statusDefaultOpen],
    changes: [
      { id: 'createTestSample request /status default', clients: 'breaking', servers: 'breaking', level: 'profile', proof: confirmed },
    ],
  },
  {
    name: 'an optional answer member added',
    old: [],
    new: [lotBatch],
    changes: [
      { id: 'getOrderInfo answer /lots/*/batch member', clients: 'compatible', servers: 'compatible', level: 'spec', proof: agree },
    ],
  },
  {
    name: 'a new optional request member',
    old: [],
    new: [evolution('a new optional member with bounds')],
    changes: [
      {
        id: 'createLotTransfer request /priority member',
        clients: 'compatible',
        servers: 'breaking',
        level: 'spec',
        proof: { clients: 'agrees', servers: 'confirmed' },
      },
      { id: 'createLotTransfer answer /priority member', clients: 'compatible', servers: 'compatible', level: 'spec', proof: agree },
    ],
  },
  {
    name: 'an operation removed',
    old: [],
    new: [sampleOperationRemoved],
    changes: [
      {
        id: 'createTestSample operation',
        clients: 'breaking',
        servers: 'compatible',
        level: 'spec',
        proof: { clients: 'confirmed', servers: 'agrees' },
      },
    ],
  },
  {
    name: 'an order member newly required that the fixtures lack',
    old: [],
    new: [orderRegionRequired],
    changes: [
      {
        id: 'getOrderInfo answer /order/region member',
        clients: 'compatible',
        servers: 'compatible',
        level: 'spec',
        proof: { servers: 'agrees' },
      },
      {
        id: 'getOrderInfo answer /order/region required',
        clients: 'compatible',
        servers: 'breaking',
        level: 'profile',
        // The mock of the new contract refuses the fixture orders (they lack the member): the clients' run cannot be made.
        proof: { servers: 'confirmed' },
      },
    ],
    mockRefuses: 'new',
  },
  {
    name: 'an API-key scheme replacing the bearer token on one operation',
    old: [],
    new: [apiKeyDeclared, sampleByKey],
    changes: [
      {
        id: 'createTestSample operation security-scheme bearerAuth→apiKeyAuth',
        clients: 'breaking',
        servers: 'breaking',
        level: 'spec',
        proof: confirmed,
      },
    ],
  },
  {
    name: "a scheme added to an operation's requirement (bearer and API key together)",
    old: [apiKeyDeclared],
    new: [apiKeyDeclared, sampleByBearerAndKey],
    changes: [
      {
        id: 'createTestSample operation security-scheme apiKeyAuth',
        clients: 'breaking',
        servers: 'breaking',
        level: 'spec',
        proof: confirmed,
      },
    ],
  },
  {
    name: "a scheme removed from an operation's requirement",
    old: [apiKeyDeclared, sampleByBearerAndKey],
    new: [apiKeyDeclared],
    changes: [
      {
        id: 'createTestSample operation security-scheme apiKeyAuth',
        clients: 'compatible',
        servers: 'breaking',
        level: 'spec',
        proof: { clients: 'agrees', servers: 'confirmed' },
      },
    ],
  },
  {
    name: 'an alternative added (the bearer token or an API key)',
    old: [apiKeyDeclared],
    new: [apiKeyDeclared, sampleByBearerOrKey],
    changes: [
      {
        id: 'createTestSample operation security-alternative apiKeyAuth',
        clients: 'compatible',
        servers: 'breaking',
        level: 'spec',
        // The new suite sends the bearer token, which a v1 server accepts.
        proof: { clients: 'agrees', servers: 'not-shown' },
      },
    ],
  },
  {
    name: 'an alternative removed',
    old: [apiKeyDeclared, sampleByBearerOrKey],
    new: [apiKeyDeclared],
    changes: [
      {
        id: 'createTestSample operation security-alternative apiKeyAuth',
        clients: 'breaking',
        servers: 'breaking',
        level: 'spec',
        // Both suites send the bearer token, the alternative both contracts keep; the new suite's check of
        // another scheme sends the API key alone, which a v1 server still accepts.
        proof: { clients: 'not-shown', servers: 'confirmed' },
      },
    ],
  },
  {
    name: 'security turned off on one operation (security: [])',
    old: [],
    new: [sampleSecurity([])],
    changes: [
      {
        id: 'createTestSample operation security',
        clients: 'compatible',
        servers: 'breaking',
        level: 'spec',
        // The new suite sends no credential where none is asked for, which a v1 server refuses.
        proof: { clients: 'agrees', servers: 'confirmed' },
      },
    ],
  },
  {
    name: 'security turned on for one operation',
    old: [sampleSecurity([])],
    new: [],
    changes: [
      {
        id: 'createTestSample operation security',
        clients: 'breaking',
        servers: 'breaking',
        level: 'spec',
        // The old suite sends no credential where v1 asks for none, which the new mock refuses.
        proof: confirmed,
      },
    ],
  },
  {
    name: 'credentials made optional (an empty alternative {})',
    old: [],
    new: [sampleSecurity([{}, { bearerAuth: [] }])],
    changes: [
      {
        id: 'createTestSample operation security',
        clients: 'compatible',
        servers: 'breaking',
        level: 'spec',
        // The new suite takes the first alternative (no credential), which a v1 server refuses.
        proof: { clients: 'agrees', servers: 'confirmed' },
      },
    ],
  },
  {
    name: 'an API key moved from a header to the query',
    old: [apiKeyDeclared, sampleByKey],
    new: [apiKeyDeclared, sampleByKey, apiKeyInQuery],
    changes: [
      {
        id: 'createTestSample operation security-carrier apiKeyAuth',
        clients: 'breaking',
        servers: 'breaking',
        level: 'spec',
        proof: confirmed,
      },
    ],
  },
  {
    name: "an API key's header renamed",
    old: [apiKeyDeclared, sampleByKey],
    new: [apiKeyDeclared, sampleByKey, apiKeyHeaderRenamed],
    changes: [
      {
        id: 'createTestSample operation security-carrier apiKeyAuth',
        clients: 'breaking',
        servers: 'breaking',
        level: 'spec',
        proof: confirmed,
      },
    ],
  },
  {
    name: 'an http scheme changed from bearer to basic (every operation)',
    old: [],
    new: [bearerToBasic],
    changes: ['getOrderInfo', 'createLotTransfer', 'createTestSample'].map((op) => ({
      id: `${op} operation security-carrier bearerAuth`,
      clients: 'breaking' as const,
      servers: 'breaking' as const,
      level: 'spec' as const,
      // The old suite is refused the order read, so it never reaches the creates (they need its lots).
      proof: op === 'getOrderInfo' ? confirmed : { clients: 'not-shown' as const, servers: 'not-shown' as const },
    })),
  },
  {
    name: 'a scheme renamed, its credential sent as before',
    old: [],
    new: [bearerRenamed],
    changes: ['getOrderInfo', 'createLotTransfer', 'createTestSample'].map((op) => ({
      id: `${op} operation security-scheme bearerAuth→jwtAuth`,
      clients: 'compatible' as const,
      servers: 'compatible' as const,
      level: 'spec' as const,
      proof: agree,
    })),
  },
  {
    name: "an operation's security replaced where the contract marks it a profile decision (x-profile: [security])",
    old: [apiKeyDeclared, sampleSecurity([{ bearerAuth: [] }]), sampleSecurityProfile],
    new: [apiKeyDeclared, sampleByKey, sampleSecurityProfile],
    changes: [
      {
        id: 'createTestSample operation security-scheme bearerAuth→apiKeyAuth',
        clients: 'breaking',
        servers: 'breaking',
        level: 'profile',
        proof: confirmed,
      },
    ],
  },
  { name: 'no change', old: [], new: [], changes: [] },
];

/**
 * The pair of docs/compat.md's sample report: the bundled contract (v1) and an edit of it with four
 * changes of different classes (a bound narrowed, a new optional request member, a default changed,
 * an optional answer member added).
 */
export const SAMPLE_PAIR: CompatPair = {
  name: 'the sample of docs/compat.md',
  old: [],
  new: [maximumOnAmount, evolution('a new optional member with bounds'), statusDefaultOpen, lotBatch],
  changes: [],
};

/** The bundled contract with the edits applied (a fresh copy). */
export function editedContract(edits: readonly Edit[]): OpenApiDocument {
  const document = structuredClone(readContract());
  for (const edit of edits) edit(document);
  return document;
}

/** Writes both contracts of a pair to a temporary folder as `old.json` and `new.json`; answers their paths. */
export function writePair(pair: CompatPair, dir = mkdtempSync(join(tmpdir(), 'goods-compat-'))): { dir: string; old: string; new: string } {
  const paths = { dir, old: join(dir, 'old.json'), new: join(dir, 'new.json') };
  writeFileSync(paths.old, JSON.stringify(editedContract(pair.old), null, 2));
  writeFileSync(paths.new, JSON.stringify(editedContract(pair.new), null, 2));
  return paths;
}

/** A pair by its name. */
export function pairNamed(name: string): CompatPair {
  const pair = COMPAT_PAIRS.find((p) => p.name === name);
  if (!pair) throw new Error(`no compat pair named "${name}"`);
  return pair;
}
