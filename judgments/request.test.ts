/** The client-side judgments: a request judged on its own, one violation per JSON pointer of its body. */
import assert from 'node:assert/strict';
import { BEARER_CREDENTIALS } from '../util/bearer.js';
import { readContract } from '../contract/document.js';
import { operationsModel } from '../contract/operations-model.js';
import { compileContract } from '../contract/schemas.js';
import type { JudgeContext, JudgedExchange } from './exchange.js';
import type { OperationSecurity, SecurityScheme } from '../contract/security.js';
import {
  credentialsFault,
  JsonBodyFault,
  judgeCredentialsSent,
  judgeKnownOperation,
  judgeRequestJson,
  judgeRequestMediaType,
  judgeRequestSchema,
  mediaTypeFault,
  parseJsonBody,
  presentedCredential,
  presentedBearer,
  securityPresented,
} from './request.js';

const document = readContract();
const model = operationsModel(document);
const contracts = { spec: compileContract(document, 'spec'), strict: compileContract(document, 'strict') };
const strict: JudgeContext = { level: 'strict', model, contracts };
const spec: JudgeContext = { level: 'spec', model, contracts };
const [op = 'createLotTransfer'] = model.createIds;
const create = model.create(op);

function request(headers: Record<string, string>, body?: string | Buffer): JudgedExchange {
  return { request: { target: op, method: 'POST', path: create.path, headers, ...(body !== undefined ? { body } : {}) } };
}

/** A valid body of the create, from the operations model: every required member with a value of its type. */
function validBody(): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const m of create.members.filter((x) => x.required && !x.readOnly))
    body[m.name] = m.type === 'string' ? 'S-1' : m.type === 'boolean' ? false : m.namesLot ? 2001 : 1;
  return body;
}

describe('judgments of a client request', () => {
  it('credentials: missing, another scheme, a malformed token, a bearer token (as the judges of an answer read them too)', () => {
    const security = model.get(op).security;
    const presented = (headers: Record<string, string>) => securityPresented(request(headers).request, security);
    assert.deepEqual(presented({}), { kind: 'nothing' });
    assert.deepEqual(presented({ authorization: 'Basic dTpw' }), { kind: 'nothing' });
    assert.deepEqual(presented({ authorization: 'Bearer a b' }), { kind: 'malformed' });
    assert.deepEqual(presented({ authorization: 'Bearer abc' }), { kind: 'well-formed', bearer: true });
    assert.deepEqual(presentedBearer('Basic dTpw'), { kind: 'other-scheme', scheme: 'Basic' });
    assert.equal(judgeCredentialsSent(request({}), strict, op)[0]?.header, 'authorization');
    assert.deepEqual(judgeCredentialsSent(request({ authorization: 'Bearer abc' }), strict, op), []);
  });

  it('a bearer header is read as RFC 6750 §2.1 reads it (the regular expression, match groups and all), on 20,000 seeded headers', () => {
    const parts = ['Bearer', 'bearer', 'BEARER', 'Basic', 'Bearer2', ' ', '  ', '\t', 'abc', 'A-._~+/', '==', '=', 'x y', ',', 'ü', ''];
    let seed = 11;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const byTheRule = (header: string): ReturnType<typeof presentedBearer> => {
      if (header.trim() === '') return { kind: 'missing' };
      const scheme = /^\S+/.exec(header)?.[0] ?? '';
      if (scheme.toLowerCase() !== 'bearer') return { kind: 'other-scheme', scheme };
      const token = BEARER_CREDENTIALS.exec(header)?.[1];
      return token === undefined ? { kind: 'malformed' } : { kind: 'credential', credential: token };
    };
    for (let i = 0; i < 20_000; i++) {
      let header = '';
      for (let n = next(6); n >= 0; n--) header += parts[next(parts.length)] ?? '';
      assert.deepEqual(presentedBearer(header), byTheRule(header), JSON.stringify(header));
    }
  });

  it('an operation of the contract: a wrong method names the allowed ones, an unknown path says so', () => {
    const none = { request: { method: 'DELETE', path: create.path, headers: {} } };
    assert.equal(judgeKnownOperation(none, ['POST'])[0]?.in, 'method');
    assert.equal(judgeKnownOperation(none)[0]?.in, 'path');
    assert.deepEqual(judgeKnownOperation(request({})), []);
  });

  it('media type and JSON: application/json with a charset passes; text/plain, an empty body, broken JSON do not', () => {
    assert.deepEqual(judgeRequestMediaType(request({ 'content-type': 'application/json; charset=utf-8' }), strict, op), []);
    assert.equal(judgeRequestMediaType(request({ 'content-type': 'text/plain' }), strict, op)[0]?.header, 'content-type');
    assert.equal(judgeRequestJson(request({}), strict, op).length, 1);
    assert.equal(judgeRequestJson(request({}, '{"a":'), strict, op).length, 1);
    assert.deepEqual(judgeRequestJson(request({}, '{}'), strict, op), []);
  });

  it('the schema: one violation per pointer, every problem of the body; an unknown member only at strict', () => {
    assert.deepEqual(judgeRequestSchema(request({}, JSON.stringify(validBody())), strict, op), []);
    const [first, second] = create.members.filter((m) => m.required && !m.readOnly);
    const broken: Record<string, unknown> = { ...validBody(), colour: 'red' };
    if (first) broken[first.name] = first.type === 'string' ? 7 : 'seven';
    if (second) delete broken[second.name];
    const pointers = judgeRequestSchema(request({}, JSON.stringify(broken)), strict, op).map((v) => v.pointer);
    assert.ok(pointers.includes(`/${first?.name ?? ''}`), pointers.join());
    assert.ok(pointers.includes('/colour'), pointers.join());
    assert.ok(pointers.length >= 3, pointers.join());
    assert.ok(!judgeRequestSchema(request({}, JSON.stringify(broken)), spec, op).some((v) => v.pointer === '/colour'));
  });

  it('the media type fault: absent, malformed, another type, a charset other than UTF-8; UTF-8 in any case or quoted, other parameters pass', () => {
    const wanted = 'application/json';
    assert.equal(mediaTypeFault(wanted, wanted), undefined);
    for (const ok of ['Application/JSON', 'application/json; charset=UTF-8', 'application/json;charset="utf-8"', 'application/json; v=2'])
      assert.equal(mediaTypeFault(ok, wanted), undefined, ok);
    assert.deepEqual(mediaTypeFault(undefined, wanted), { kind: 'missing' });
    assert.deepEqual(mediaTypeFault(' ', wanted), { kind: 'missing' });
    assert.deepEqual(mediaTypeFault('application/', wanted), { kind: 'malformed' });
    assert.deepEqual(mediaTypeFault('text/json', wanted), { kind: 'other-type', type: 'text/json' });
    assert.deepEqual(mediaTypeFault('application/json; charset=ISO-8859-1', wanted), { kind: 'charset', charset: 'ISO-8859-1' });
    assert.deepEqual(mediaTypeFault('application/json; charset=utf-16', wanted), { kind: 'charset', charset: 'utf-16' });
    assert.deepEqual(mediaTypeFault('application/json', 'application/merge-patch+json'), {
      kind: 'other-type',
      type: 'application/json',
    });
    const [violation] = judgeRequestMediaType(request({ 'content-type': 'application/json; charset=latin1' }), strict, op);
    assert.match(violation?.reason ?? '', /charset=latin1: JSON text is UTF-8 \(RFC 8259 §8\.1\)/);
  });

  it('the JSON body: its value, or the fault (empty, not UTF-8, not JSON); a byte order mark is ignored', () => {
    assert.deepEqual(parseJsonBody(Buffer.from('{"a":1}')), { a: 1 });
    assert.deepEqual(parseJsonBody(Buffer.from('\ufeff[1]')), [1]);
    assert.deepEqual(parseJsonBody('\ufeff[1]'), [1]);
    const fault = (body: Buffer | string) => {
      const parsed = parseJsonBody(body);
      return parsed instanceof JsonBodyFault ? parsed.kind : 'parsed';
    };
    assert.equal(fault(Buffer.alloc(0)), 'empty');
    assert.equal(fault(Buffer.from([0x22, 0xff, 0x22])), 'not-utf8');
    assert.equal(fault('{"a":'), 'not-json');
    assert.equal(fault('{} {}'), 'not-json');
    assert.match(judgeRequestJson(request({}, Buffer.from([0x7b, 0xc3])), strict, op)[0]?.reason ?? '', /not UTF-8/);
  });

  it("a reader's depth limit: a body nested deeper is too-deep before it is parsed; at the limit, or without a limit, it is parsed", () => {
    const nested = (depth: number) => `${'{"a":['.repeat(depth / 2)}1${']}'.repeat(depth / 2)}`;
    const kind = (body: string, maxDepth?: number) => {
      const parsed = parseJsonBody(body, maxDepth);
      return parsed instanceof JsonBodyFault ? parsed.kind : 'parsed';
    };
    assert.equal(kind(nested(8), 8), 'parsed');
    assert.equal(kind(nested(10), 8), 'too-deep');
    assert.equal(kind(nested(10)), 'parsed');
    // Brackets in strings do not nest; a broken text past the limit is refused for its depth, unparsed.
    assert.equal(kind(`{"a":"${'['.repeat(50)}"}`, 8), 'parsed');
    assert.equal(kind(`${'['.repeat(50)}`, 8), 'too-deep');
  });

  describe('credentials of every kind of scheme', () => {
    const scheme = (name: string, carrier: SecurityScheme['carrier']): SecurityScheme => ({
      name,
      type: 'x',
      carrier,
      pointer: `/${name}`,
    });
    const bearer = scheme('bearer', { kind: 'authorization', scheme: 'bearer' });
    const basic = scheme('basic', { kind: 'authorization', scheme: 'basic' });
    const custom = scheme('custom', { kind: 'authorization', scheme: 'custom' });
    const header = scheme('header', { kind: 'apiKey', in: 'header', name: 'x-api-key' });
    const query = scheme('query', { kind: 'apiKey', in: 'query', name: 'api_key' });
    const cookie = scheme('cookie', { kind: 'apiKey', in: 'cookie', name: 'sid' });
    const b64 = (text: string) => Buffer.from(text).toString('base64');

    it('what a request presents for one scheme: missing, another scheme, malformed, or the credential', () => {
      const kind = (s: SecurityScheme, headers: Record<string, string>, search = '') => {
        const presented = presentedCredential(s, headers, search);
        return presented.kind === 'credential' ? `credential ${presented.credential}` : presented.kind;
      };
      assert.equal(kind(bearer, {}), 'missing');
      assert.equal(kind(bearer, { authorization: 'Basic abc' }), 'other-scheme');
      assert.equal(kind(bearer, { authorization: 'Bearer a b' }), 'malformed');
      assert.equal(kind(bearer, { authorization: 'BEARER  t-1' }), 'credential t-1');
      assert.equal(kind(basic, { authorization: `Basic ${b64('ann:p:w')}` }), 'credential ann:p:w');
      assert.equal(presentedCredential(basic, { authorization: `Basic ${b64('ann:p:w')}` }, '').kind, 'credential');
      assert.deepEqual(presentedCredential(basic, { authorization: `Basic ${b64('ann:pw')}` }, ''), {
        kind: 'credential',
        credential: 'ann:pw',
        password: 'pw',
      });
      assert.equal(kind(basic, { authorization: `Basic ${b64('no-colon')}` }), 'malformed');
      assert.equal(kind(basic, { authorization: 'Basic !!' }), 'malformed');
      assert.equal(kind(basic, { authorization: 'Bearer t' }), 'other-scheme');
      assert.equal(kind(custom, { authorization: 'Custom' }), 'malformed');
      assert.equal(kind(custom, { authorization: 'custom  a  b' }), 'credential a b');
      assert.equal(kind(header, { 'x-api-key': 'k' }), 'credential k');
      assert.equal(kind(header, { 'x-api-key': '' }), 'missing');
      assert.equal(kind(query, {}, '?a=1&api_key=k%2F1'), 'credential k/1');
      assert.equal(kind(query, { api_key: 'k' }), 'missing');
      assert.equal(kind(cookie, { cookie: 'a=1; sid=k' }), 'credential k');
      assert.equal(kind(cookie, { cookie: 'sidx=k' }), 'missing');
    });

    it("an operation's security: any alternative whole passes; else the first alternative's fault, or a later one that presented something", () => {
      const security: OperationSecurity = { alternatives: [[bearer], [header, basic]], secured: true };
      const fault = (headers: Record<string, string>, refusal?: (c: { credential: string }) => string | undefined) => {
        const found = credentialsFault(security, headers, '', refusal);
        return found === undefined ? 'passes' : `${found.scheme.name} ${found.fault.kind}${found.invalidToken ? ' invalid_token' : ''}`;
      };
      assert.equal(fault({ authorization: 'Bearer t' }), 'passes');
      assert.equal(fault({ 'x-api-key': 'k', authorization: `Basic ${b64('a:b')}` }), 'passes');
      assert.equal(fault({ 'x-api-key': 'k' }), 'bearer missing');
      assert.equal(fault({}), 'bearer missing');
      assert.equal(fault({ authorization: 'Basic !!', 'x-api-key': 'k' }), 'basic malformed');
      assert.equal(fault({ authorization: 'Bearer a b' }), 'bearer malformed invalid_token');
      assert.equal(
        fault({ authorization: 'Bearer t' }, (c) => (c.credential === 't' ? 'refused' : undefined)),
        'bearer refused invalid_token',
      );
      assert.equal(credentialsFault({ alternatives: [[]], secured: false }, {}, ''), undefined);
    });

    it('judgeCredentialsSent names where the credential was looked for', () => {
      const withSecurity = (alternatives: SecurityScheme[][]): JudgeContext => {
        const original = model.get(op);
        const patched = { ...original, security: { alternatives, secured: true } };
        return { ...strict, model: { ...model, get: (id) => (id === op ? patched : model.get(id)) } };
      };
      const first = (alternatives: SecurityScheme[][], headers: Record<string, string>) =>
        judgeCredentialsSent(request(headers), withSecurity(alternatives), op)[0];
      assert.equal(first([[header]], {})?.header, 'x-api-key');
      assert.equal(first([[cookie]], {})?.header, 'cookie');
      assert.equal(first([[query]], {})?.in, 'path');
      assert.match(first([[basic]], { authorization: 'Basic !!' })?.reason ?? '', /RFC 7617/);
      assert.equal(first([[bearer]], { authorization: 'Basic x' })?.reason, 'the Authorization scheme is not Bearer');
      assert.equal(first([[header]], { 'x-api-key': 'k' }), undefined);
    });
  });
});
