/**
 * The static comparison on every pair of `testing/compat-pairs.ts`: the changes found, their effect on
 * clients and servers, their level; every pointer names a real place in its document; the level agrees
 * with the contract's own derivation of the spec level (`deriveLevel`).
 */
import assert from 'node:assert/strict';
import { isObject, resolvePointer, type JsonObject, type OpenApiDocument } from '../../contract/document.js';
import { deriveLevel } from '../../contract/levels.js';
import { COMPAT_PAIRS, editedContract, pairNamed, schemaNamed, type Edit } from '../testing/compat-pairs.js';
import { diffContracts } from './diff.js';
import type { Change } from './model.js';

describe('compat: the static comparison of two contracts', () => {
  for (const pair of COMPAT_PAIRS) {
    describe(pair.name, () => {
      const old = editedContract(pair.old);
      const next = editedContract(pair.new);
      const changes = diffContracts(old, next);

      it('finds exactly the expected changes, each classified for clients and servers, with its level', () => {
        assert.deepEqual(
          changes.map((c) => ({ id: c.id, clients: c.clients, servers: c.servers, level: c.level })),
          pair.changes.map((e) => ({ id: e.id, clients: e.clients, servers: e.servers, level: e.level })),
        );
        for (const change of changes) assert.ok(change.reason.length > 20 && !change.reason.includes('\n'), change.reason);
      });

      it('names a real place in each document (the fact, or the object that would hold it)', () => {
        for (const change of changes) {
          assert.notEqual(resolvePointer(old, `#${change.pointers.old}`), undefined, `old ${change.pointers.old}`);
          assert.notEqual(resolvePointer(next, `#${change.pointers.new}`), undefined, `new ${change.pointers.new}`);
        }
      });

      it('a change is a specification fact exactly when the contracts derived at the spec level show it too', () => {
        const atSpec = new Set(diffContracts(deriveLevel(old, 'spec'), deriveLevel(next, 'spec')).map((c) => c.id));
        for (const change of changes) assert.equal(atSpec.has(change.id), change.level === 'spec', change.id);
      });
    });
  }

  it('a bound narrowed: the pointer of the new keyword, and where it would stand in the old document', () => {
    const pair = pairNamed('a request bound narrowed (a maximum added)');
    const [request] = diffContracts(editedContract(pair.old), editedContract(pair.new));
    assert.deepEqual(request?.pointers, {
      old: '/components/schemas/LotTransferFields/properties/amount',
      new: '/components/schemas/LotTransferFields/properties/amount/maximum',
    });
    assert.deepEqual([request.old, request.new, request.direction], [undefined, 10000, 'narrowed']);
    assert.equal(request.operation, 'POST /goodsReception/rest/v1/lot-transfers/create');
    assert.match(request.reason, /^maximum 10000 added: a request a v1 client may send is refused now/);
  });

  it('a recursive schema (a lot of lots) is read once per path: compared by the name it refers to', () => {
    const tree: Edit = (doc) => {
      const properties = schemaNamed(doc, 'Lot')['properties'];
      if (!isObject(properties)) throw new Error('Lot has no properties');
      properties['parent'] = { $ref: '#/components/schemas/Lot' };
      properties['children'] = { type: 'array', items: { $ref: '#/components/schemas/Lot' } };
    };
    const unitBound: Edit = (doc) => {
      const properties = schemaNamed(doc, 'Lot')['properties'];
      if (isObject(properties) && isObject(properties['unit'])) properties['unit']['maxLength'] = 10;
    };
    const changes = diffContracts(editedContract([tree]), editedContract([tree, unitBound]));
    assert.deepEqual(
      changes.map((c) => [c.id, c.clients, c.servers]),
      [['getOrderInfo answer /lots/*/unit maxLength', 'compatible', 'breaking']],
    );
  });

  describe('security, per operation, from the operations model', () => {
    const schemes = (doc: OpenApiDocument): JsonObject => {
      const components = doc['components'];
      const found = isObject(components) ? components['securitySchemes'] : undefined;
      if (!isObject(found)) throw new Error('no securitySchemes');
      return found;
    };
    const declare =
      (name: string, scheme: JsonObject): Edit =>
      (doc) => {
        schemes(doc)[name] = scheme;
      };
    const sampleSecurity =
      (requirements: JsonObject[]): Edit =>
      (doc) => {
        const paths = doc['paths'];
        for (const item of isObject(paths) ? Object.values(paths) : [])
          for (const op of isObject(item) ? Object.values(item) : [])
            if (isObject(op) && op['operationId'] === 'createTestSample') op['security'] = requirements;
      };
    const key = (name: string, where = 'header'): JsonObject => ({ type: 'apiKey', in: where, name });
    const rows = (changes: Change[]): string[][] => changes.map((c) => [c.id, c.clients, c.servers, c.pointers.old, c.pointers.new]);
    const SAMPLE = '/paths/~1goodsReception~1rest~1v1~1test-samples~1create/post/security';

    it('a scheme declared but used by no operation changes nothing; used, it is a change of that operation only', () => {
      const declared = declare('apiKeyAuth', key('X-API-Key'));
      assert.deepEqual(diffContracts(editedContract([]), editedContract([declared])), []);
      assert.deepEqual(
        diffContracts(editedContract([declared]), editedContract([declared, sampleSecurity([{ apiKeyAuth: [] }])])).map((c) => c.id),
        ['createTestSample operation security-scheme bearerAuth→apiKeyAuth'],
      );
    });

    it("the document's security replaced: a change of every operation, at /security", () => {
      const byKey: Edit = (doc) => {
        doc['security'] = [{ apiKeyAuth: [] }];
      };
      const declared = declare('apiKeyAuth', key('X-API-Key'));
      const changes = diffContracts(editedContract([declared]), editedContract([declared, byKey]));
      assert.deepEqual(
        changes.map((c) => [c.operationId, c.aspect, c.pointers.old, c.pointers.new, c.level]),
        ['getOrderInfo', 'createLotTransfer', 'createTestSample'].map((op) => [
          op,
          'security-scheme bearerAuth→apiKeyAuth',
          '/security/0/bearerAuth',
          '/security/0/apiKeyAuth',
          'spec',
        ]),
      );
    });

    it('a scheme reached through a $ref: its carrier change names the scheme written', () => {
      const old = editedContract([
        declare('apiKeyAuth', key('X-API-Key')),
        declare('alias', { $ref: '#/components/securitySchemes/apiKeyAuth' }),
        sampleSecurity([{ alias: [] }]),
      ]);
      const next = structuredClone(old);
      schemes(next)['apiKeyAuth'] = key('X-API-Key', 'cookie');
      assert.deepEqual(rows(diffContracts(old, next)), [
        [
          'createTestSample operation security-carrier alias',
          'breaking',
          'breaking',
          '/components/securitySchemes/apiKeyAuth/in',
          '/components/securitySchemes/apiKeyAuth/in',
        ],
      ]);
    });

    it('OAuth 2 and OpenID Connect send bearer tokens: one replaced by the other under the same name changes nothing on the wire', () => {
      const oauth = declare('bearerAuth', {
        type: 'oauth2',
        flows: { clientCredentials: { tokenUrl: 'https://id.example/token', scopes: {} } },
      });
      const oidc = declare('bearerAuth', {
        type: 'openIdConnect',
        openIdConnectUrl: 'https://id.example/.well-known/openid-configuration',
      });
      assert.deepEqual(diffContracts(editedContract([oauth]), editedContract([oidc])), []);
      assert.deepEqual(diffContracts(editedContract([]), editedContract([oidc])), []);
    });

    it('several alternatives: each edit of each alternative is its own change, ids unique, each judged against every alternative', () => {
      const declared: Edit[] = [declare('a', key('A')), declare('b', key('B')), declare('c', key('C'))];
      const old = editedContract([...declared, sampleSecurity([{ a: [] }, { b: [], c: [] }])]);
      const next = editedContract([...declared, sampleSecurity([{ a: [], c: [] }, { b: [] }])]);
      assert.deepEqual(rows(diffContracts(old, next)), [
        ['createTestSample operation security-scheme c', 'breaking', 'breaking', `${SAMPLE}/0`, `${SAMPLE}/0/c`],
        ['createTestSample operation security-scheme c (alternative 1)', 'compatible', 'breaking', `${SAMPLE}/1/c`, `${SAMPLE}/1`],
      ]);
      // An alternative added that an old one already covers (b + c, where b alone sufficed) moves nothing.
      const covered = editedContract([...declared, sampleSecurity([{ a: [] }, { b: [] }, { b: [], c: [] }])]);
      const base = editedContract([...declared, sampleSecurity([{ a: [] }, { b: [] }])]);
      assert.deepEqual(
        diffContracts(base, covered).map((c) => [c.aspect, c.clients, c.servers]),
        [['security-alternative b+c', 'compatible', 'compatible']],
      );
      // And removed again: b alone still suffices, so no one is refused.
      assert.deepEqual(
        diffContracts(covered, base).map((c) => [c.aspect, c.clients, c.servers]),
        [['security-alternative b+c', 'compatible', 'compatible']],
      );
    });

    it("the document's security a profile decision (x-profile: [security] on the document): profile, gone at the spec level", () => {
      const marked: Edit = (doc) => {
        doc['x-profile'] = ['security'];
      };
      const basic: Edit = (doc) => {
        doc['security'] = [{ basicAuth: [] }];
      };
      const edits = [marked, declare('basicAuth', { type: 'http', scheme: 'basic' })];
      const old = editedContract(edits);
      const next = editedContract([...edits, basic]);
      const changes = diffContracts(old, next);
      assert.deepEqual(
        changes.map((c) => [c.aspect, c.level]),
        [0, 1, 2].map(() => ['security-scheme bearerAuth→basicAuth', 'profile']),
      );
      assert.deepEqual(diffContracts(deriveLevel(old, 'spec'), deriveLevel(next, 'spec')), []);
    });
  });

  it('the same contract twice has no change', () => {
    assert.deepEqual(diffContracts(editedContract([]), editedContract([])), []);
  });
});
