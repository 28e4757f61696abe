/** The contract's security schemes and each operation's requirements, as OpenAPI 3.1 means them. */
import assert from 'node:assert/strict';
import type { JsonObject, OpenApiDocument } from './document.js';
import { carrierText, operationSecurity, SecurityError, schemesOf, securitySchemes } from './security.js';

const doc = (schemes: Record<string, unknown>, security?: unknown[]): OpenApiDocument =>
  JSON.parse(
    JSON.stringify({ openapi: '3.1.0', components: { securitySchemes: schemes }, ...(security ? { security } : {}) }),
  ) as OpenApiDocument;

describe('security schemes', () => {
  it('reads where each credential travels: http schemes in Authorization, API keys where declared, OAuth 2 and OpenID Connect as bearer tokens', () => {
    const schemes = securitySchemes(
      doc({
        bearer: { type: 'http', scheme: 'Bearer' },
        basic: { type: 'http', scheme: 'basic' },
        header: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        query: { type: 'apiKey', in: 'query', name: 'api_key' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'session' },
        oauth: { type: 'oauth2', flows: {} },
        oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://id.example/.well-known/openid-configuration' },
      }),
    );
    assert.deepEqual(
      [...schemes.values()].map((s) => `${s.name}: ${carrierText(s.carrier)}`),
      [
        'bearer: Authorization: Bearer',
        'basic: Authorization: Basic',
        'header: header x-api-key',
        'query: query api_key',
        'cookie: cookie session',
        'oauth: Authorization: Bearer',
        'oidc: Authorization: Bearer',
      ],
    );
  });

  it('names where each scheme and each requirement list is written (a $ref to another scheme followed)', () => {
    const d = doc({ key: { type: 'apiKey', in: 'header', name: 'K' }, 'a/b': { $ref: '#/components/securitySchemes/key' } }, [{ key: [] }]);
    const schemes = securitySchemes(d);
    assert.deepEqual(
      [...schemes.values()].map((s) => [s.name, s.pointer]),
      [
        ['key', '/components/securitySchemes/key'],
        ['a/b', '/components/securitySchemes/key'],
      ],
    );
    assert.equal(schemes.get('a/b')?.carrier.kind, 'apiKey');
    const of = (operation: JsonObject, on: OpenApiDocument = d) => operationSecurity(on, schemes, operation, '/x/{id}', 'get').pointer;
    assert.equal(of({ security: [{ 'a/b': [] }] }), '/paths/~1x~1{id}/get/security');
    assert.equal(of({}), '/security');
    assert.equal(of({}, doc({})), undefined);
    assert.equal(of({ security: [] }, doc({})), '/paths/~1x~1{id}/get/security');
  });

  it('refuses what cannot be served, naming its pointer', () => {
    const refused = (schemes: Record<string, unknown>, pointer: string, says: RegExp) =>
      assert.throws(
        () => securitySchemes(doc(schemes)),
        (error: unknown) => error instanceof SecurityError && error.pointer === pointer && says.test(error.message),
      );
    refused({ tls: { type: 'mutualTLS' } }, '/components/securitySchemes/tls', /mutualTLS/);
    refused({ key: { type: 'apiKey', in: 'body', name: 'k' } }, '/components/securitySchemes/key', /header, query or cookie/);
    refused({ key: { type: 'apiKey', in: 'header' } }, '/components/securitySchemes/key', /needs "name"/);
    refused({ h: { type: 'http' } }, '/components/securitySchemes/h', /needs "scheme"/);
    refused({ x: { type: 'magic' } }, '/components/securitySchemes/x', /unknown type "magic"/);
  });

  it("an operation's requirements: its own security, else the document's; alternatives; {} and [] let requests through", () => {
    const d = doc({ bearer: { type: 'http', scheme: 'bearer' }, key: { type: 'apiKey', in: 'header', name: 'K' } }, [{ bearer: [] }]);
    const schemes = securitySchemes(d);
    const of = (operation: JsonObject) => operationSecurity(d, schemes, operation, '/x', 'get');
    const names = (s: ReturnType<typeof of>) => s.alternatives.map((a) => a.map((x) => x.name).join('+'));
    assert.deepEqual([names(of({})), of({}).secured], [['bearer'], true]);
    assert.deepEqual(
      [names(of({ security: [{ key: [] }, { bearer: [], key: [] }] })), of({ security: [{ key: [] }] }).secured],
      [['key', 'bearer+key'], true],
    );
    assert.deepEqual([names(of({ security: [] })), of({ security: [] }).secured], [[], false]);
    assert.deepEqual([names(of({ security: [{}, { key: [] }] })), of({ security: [{}, { key: [] }] }).secured], [['', 'key'], false]);
    assert.deepEqual(
      schemesOf(of({ security: [{ key: [] }, { bearer: [], key: [] }] })).map((s) => s.name),
      ['key', 'bearer'],
    );
    assert.throws(
      () => of({ security: [{ nobody: [] }] }),
      (error: unknown) =>
        error instanceof SecurityError && error.pointer === '/paths/~1x/get/security/0' && /not declared/.test(error.message),
    );
  });
});
