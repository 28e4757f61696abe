/**
 * One validation of requests: the same requests go to the request judgments (`judgments/request.ts`,
 * what the validating proxy judges a client by) and to the mock (its whole pipeline, over loopback),
 * and the two must agree case by case: the mock refuses a request with the problem of the first rule
 * the judgments find broken, in the order of its stages (credentials 401, media type 415, JSON 400,
 * schema 400 with the same pointers), and accepts what they find nothing wrong with. Cases: valid
 * requests, media types (charset variants included), broken JSON, schema violations, and credentials
 * missing, under another scheme, malformed or well-formed, for every kind of security scheme a contract
 * can declare (each variant of the bundled contract's security served by its own mock); the bundled
 * contract's creates, and a grown contract's creates and changes (merge patch, replace, an API key).
 * Two tests show the comparison fails: the judgments as they stood before the charset rule was shared
 * are caught, and so is a mock answer paired with another case.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readContract, type JsonObject } from '../contract/document.js';
import { operationsModel, type OperationId, type OperationModel } from '../contract/operations-model.js';
import { schemesOf, type SecurityScheme } from '../contract/security.js';
import { judgeContexts, type JudgeContext, type JudgedExchange, type Violation } from '../judgments/index.js';
import { judgeCredentialsSent, judgeRequestJson, judgeRequestMediaType, judgeRequestSchema, mediaTypeFault } from '../judgments/request.js';
import { PROBLEMS } from './problems.js';
import type { MockServer } from './server.js';
import { grownContract } from '../support/grown-contracts.js';
import { bundledContract, rawRequest, startMock, type RawAnswer } from './testing.js';

/** What one side made of a request: accepted, or refused for the first rule broken (the pointers of a schema refusal). */
interface Verdict {
  rule: 'accepted' | 'credentials' | 'media-type' | 'json' | 'schema' | `other: ${string}`;
  pointers?: string[];
}

interface Case {
  name: string;
  op: OperationId;
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

type Judge = (exchange: JudgedExchange, jc: JudgeContext, op: OperationId) => Violation[];

/** The request judgments in the order of the mock's stages (security, then validate: media type, JSON, schema). */
const JUDGES: readonly (readonly [Verdict['rule'], Judge])[] = [
  ['credentials', judgeCredentialsSent],
  ['media-type', judgeRequestMediaType],
  ['json', judgeRequestJson],
  ['schema', (exchange, jc, op) => judgeRequestSchema(exchange, jc, op, 'strict')],
];

function exchangeOf(c: Case): JudgedExchange {
  const headers = Object.fromEntries(Object.entries(c.headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { request: { target: c.op, method: c.method, path: c.path, headers, ...(c.body !== undefined ? { body: c.body } : {}) } };
}

function judgedVerdict(c: Case, jc: JudgeContext, judges: typeof JUDGES = JUDGES): Verdict {
  for (const [rule, judge] of judges) {
    const violations = judge(exchangeOf(c), jc, c.op);
    if (violations.length > 0)
      return rule === 'schema' ? { rule, pointers: [...new Set(violations.map((v) => v.pointer ?? ''))].sort() } : { rule };
  }
  return { rule: 'accepted' };
}

/** The `errors[].detail` of the mock's 400 for a body that is no JSON text (`mock/body.ts`); any other 400 invalid-body is a schema refusal. */
const JSON_DETAILS = new Set(['is empty', 'is not valid UTF-8', 'is not valid JSON']);

function mockVerdict(answer: RawAnswer): Verdict {
  if (answer.status < 300) return { rule: 'accepted' };
  const problem = JSON.parse(answer.body) as { type?: unknown; errors?: { pointer: string; detail: string }[] };
  // Past validation, facts of the mock's data beyond the request's own rules: a lot the fixtures lack, a record no one created.
  if (problem.type === PROBLEMS.unknownLot.type || problem.type === PROBLEMS.recordNotFound.type) return { rule: 'accepted' };
  const errors = problem.errors ?? [];
  if (problem.type === PROBLEMS.unauthorized.type) return { rule: 'credentials' };
  if (problem.type === PROBLEMS.unsupportedMediaType.type) return { rule: 'media-type' };
  if (problem.type === PROBLEMS.invalidBody.type)
    return errors.length > 0 && errors.every((e) => e.pointer === '' && JSON_DETAILS.has(e.detail))
      ? { rule: 'json' }
      : { rule: 'schema', pointers: [...new Set(errors.map((e) => e.pointer))].sort() };
  return { rule: `other: ${answer.status} ${String(problem.type)}` };
}

/** The cases whose two verdicts differ, each as one line (empty: they agree throughout). */
function disagreements(cases: readonly Case[], judged: readonly Verdict[], answered: readonly Verdict[]): string[] {
  return cases.flatMap((c, i) => {
    const [a, b] = [JSON.stringify(judged[i]), JSON.stringify(answered[i])];
    return a === b ? [] : [`${c.name}: the judgments ${a}, the mock ${b}`];
  });
}

function send(server: MockServer, c: Case): Promise<RawAnswer> {
  return rawRequest(server.url, { method: c.method, path: c.path, headers: c.headers, ...(c.body !== undefined ? { body: c.body } : {}) });
}

const bundled = bundledContract();
const model = bundled.model;
const [lotId = 0] = bundled.fixtures.lots.keys();
const [orderNumber = ''] = bundled.fixtures.orders.keys();
const jc = judgeContexts(readContract()).strict;

/** A valid body of an operation, from the operations model: every required member with a value of its type, a fixture lot where it names one. */
function validBody(op: OperationModel): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const m of op.members.filter((x) => x.required && !x.readOnly))
    body[m.name] = m.namesLot ? lotId : m.type === 'string' ? 'S-1' : m.type === 'boolean' ? false : 1;
  return body;
}

/** The operation's path with a value of its type for each path parameter (a key no record has: the answer after validation is a 404). */
function pathOf(op: OperationModel): string {
  let path = op.path;
  for (const param of op.params.filter((p) => p.in === 'path'))
    path = path.replace(`{${param.name}}`, param.type === 'integer' || param.type === 'number' ? '1' : encodeURIComponent(orderNumber));
  return path;
}

/** The media types a case sends, derived from the operation's own (`wanted`): its near misses, charsets, other parameters. */
function mediaTypes(wanted: string): (string | undefined)[] {
  const [type = '', subtype = ''] = wanted.split('/');
  return [
    undefined,
    '',
    'text/plain',
    `text/${subtype}`,
    `${wanted}x`,
    wanted === 'application/json' ? 'application/merge-patch+json' : 'application/json',
    `${type.charAt(0).toUpperCase()}${type.slice(1)}/${subtype.toUpperCase()}`,
    `${wanted}; charset=utf-8`,
    `${wanted};charset=UTF-8`,
    `${wanted}; charset="utf-8"`,
    `${wanted}; charset=iso-8859-1`,
    `${wanted}; charset=utf-16`,
    `${wanted}; charset=utf8`,
    `${wanted}; charset=`,
    `${wanted}; version=2`,
    `${wanted};;`,
  ];
}

/**
 * The cases of an operation that takes a JSON body, one thing wrong at a time: its credentials (each
 * scheme's other presentations, `presentations`), its media type, the body's JSON, the body's schema.
 */
function bodyCases(op: OperationModel): Case[] {
  const valid = validBody(op);
  const json = Buffer.from(JSON.stringify(valid));
  const wanted = op.requestMediaType ?? 'application/json';
  const schemes = schemesOf(op.security);
  const [firstAlternative = []] = op.security.alternatives;
  const credentials = joined(
    'valid credentials',
    firstAlternative.map((s) => presentations(s).valid),
  );
  const at = (name: string, headers: Record<string, string | undefined>, body: Buffer = json, sent: Presentation = credentials): Case => {
    const all: Record<string, string | undefined> = { ...sent.headers, 'Content-Type': wanted, ...headers };
    return {
      name: `${op.operationId}: ${name}`,
      op: op.operationId,
      method: op.method.toUpperCase(),
      path: sent.query.length > 0 ? `${pathOf(op)}?${sent.query.join('&')}` : pathOf(op),
      headers: Object.fromEntries(Object.entries(all).flatMap(([k, v]) => (v === undefined ? [] : [[k, v]]))),
      body,
    };
  };
  const members = op.members.filter((m) => !m.readOnly);
  const [first, second] = [...members.filter((m) => m.required), ...members.filter((m) => !m.required)];
  const withBody = (name: string, value: unknown) => at(name, {}, Buffer.from(JSON.stringify(value)));
  const without = (member: string) => Object.fromEntries(Object.entries(valid).filter(([name]) => name !== member));
  const wrongType = (m: { type: string | undefined }) => (m.type === 'string' ? 7 : 'seven');
  return [
    at('a valid request', {}),
    ...mediaTypes(wanted).map((type) =>
      at(`Content-Type ${type === undefined ? 'absent' : JSON.stringify(type)}`, { 'Content-Type': type }),
    ),
    at('an empty body', {}, Buffer.alloc(0)),
    at('broken JSON', {}, Buffer.from('{"a":')),
    at('two JSON texts', {}, Buffer.from('{} {}')),
    at('invalid UTF-8 in a string', {}, Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')])),
    at('a UTF-8 byte order mark, then the valid body', {}, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json])),
    withBody('JSON null', null),
    withBody('a JSON array', [valid]),
    withBody('an unknown member', { ...valid, conformance_unknown: 1 }),
    ...(first?.required ? [withBody(`${first.name} missing`, without(first.name))] : []),
    ...(first ? [withBody(`${first.name} of the wrong type`, { ...valid, [first.name]: wrongType(first) })] : []),
    ...(first && second ? [withBody('two members wrong', { ...valid, [first.name]: [], [second.name]: wrongType(second) })] : []),
    ...schemes.flatMap((scheme) => presentations(scheme).others.map((sent) => at(sent.name, {}, json, sent))),
    at('no credentials and a wrong media type', { 'Content-Type': 'text/plain' }, Buffer.from('{'), joined('nothing', [])),
    at('a wrong media type and broken JSON', { 'Content-Type': 'text/plain' }, Buffer.from('{')),
  ];
}

// ---- the security variants: every kind of scheme, each served by its own mock ---------------------

const SCHEMES: Record<string, JsonObject> = {
  bearerAuth: { type: 'http', scheme: 'bearer' },
  headerKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
  queryKey: { type: 'apiKey', in: 'query', name: 'api_key' },
  cookieKey: { type: 'apiKey', in: 'cookie', name: 'session' },
  basicAuth: { type: 'http', scheme: 'basic' },
  customAuth: { type: 'http', scheme: 'custom' },
  oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://auth.example/token', scopes: {} } } },
};

/** The document-level security of each variant: alternatives (any one), each a set of schemes (all together). */
const VARIANTS: Record<string, string[][]> = {
  'an API key in a header': [['headerKey']],
  'an API key in the query': [['queryKey']],
  'an API key in a cookie': [['cookieKey']],
  'Basic (RFC 7617)': [['basicAuth']],
  'another HTTP scheme': [['customAuth']],
  'OAuth 2 (a bearer token)': [['oauth']],
  'bearer, or a header key and Basic together': [['bearerAuth'], ['headerKey', 'basicAuth']],
};

/** How a request presents something for a scheme: headers (a cookie joined), a query. */
interface Presentation {
  name: string;
  headers: Record<string, string>;
  query: string[];
}

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

/** A well-formed credential of a scheme, and other presentations (the ways to get it wrong, other spellings of it), derived from where it travels. */
function presentations(scheme: SecurityScheme): { valid: Presentation; others: Presentation[] } {
  const carrier = scheme.carrier;
  const p = (name: string, headers: Record<string, string> = {}, query: string[] = []): Presentation => ({
    name: `${scheme.name}: ${name}`,
    headers,
    query,
  });
  if (carrier.kind === 'apiKey') {
    const put = (value: string): Presentation =>
      carrier.in === 'header'
        ? p(`${carrier.name} ${JSON.stringify(value)}`, { [carrier.name]: value })
        : carrier.in === 'query'
          ? p(`?${carrier.name}=${value}`, {}, [`${carrier.name}=${encodeURIComponent(value)}`])
          : p(`cookie ${carrier.name}=${value}`, { Cookie: `${carrier.name}=${value}` });
    return {
      valid: put('key-1'),
      others: [
        p('nothing'),
        put(''),
        p('the key as a bearer token', { Authorization: 'Bearer key-1' }),
        p('another cookie', { Cookie: 'other=key-1' }),
      ],
    };
  }
  const name = `${carrier.scheme.charAt(0).toUpperCase()}${carrier.scheme.slice(1)}`;
  const auth = (value: string) => p(`Authorization ${JSON.stringify(value)}`, { Authorization: value });
  const malformed =
    carrier.scheme === 'bearer'
      ? [
          auth('Bearer'),
          auth('Bearer a b'),
          auth('Bearer "q"'),
          auth('Bearer ä'),
          auth('bearer  token-1,'),
          auth('bearer  token-1'),
          auth('BEARER t.o~k+e/n-1=='),
        ]
      : carrier.scheme === 'basic'
        ? [auth('Basic !!!'), auth(basic('no-colon')), auth('Basic')]
        : [auth(name)];
  const otherScheme =
    carrier.scheme === 'bearer'
      ? [auth('Token token-1'), auth(basic('ann:token-1')), auth('token-1'), auth('Bearertoken-1')]
      : [auth('Bearer token-1')];
  return {
    valid: auth(carrier.scheme === 'basic' ? basic('ann:pw') : `${name} token-1`),
    others: [p('nothing'), auth(''), ...otherScheme, ...malformed],
  };
}

function joined(name: string, parts: readonly Presentation[]): Presentation {
  const headers: Record<string, string> = {};
  for (const part of parts)
    for (const [header, value] of Object.entries(part.headers))
      headers[header] = header === 'Cookie' && headers[header] !== undefined ? `${headers[header]}; ${value}` : value;
  return { name, headers, query: parts.flatMap((part) => part.query) };
}

/** The cases of a variant on the order read: each scheme's valid credential alone and its other presentations, each alternative whole, everything, nothing. */
function securityCases(variant: string, op: OperationModel, security: OperationModel['security']): Case[] {
  const path = op.path.replace(/\{[^}]+\}/, encodeURIComponent(orderNumber));
  const of = (sent: Presentation): Case => ({
    name: `${variant}, ${sent.name}`,
    op: op.operationId,
    method: op.method.toUpperCase(),
    path: sent.query.length > 0 ? `${path}?${sent.query.join('&')}` : path,
    headers: sent.headers,
  });
  const schemes = schemesOf(security).map((s) => ({ scheme: s, ...presentations(s) }));
  const valid = new Map(schemes.map((s) => [s.scheme.name, s.valid]));
  const alternatives = security.alternatives.map((a, i) =>
    joined(
      `alternative ${i} whole`,
      a.flatMap((s) => valid.get(s.name) ?? []),
    ),
  );
  return [
    ...schemes.flatMap((s) => [s.valid, ...s.others]),
    ...alternatives,
    joined('every credential', [...valid.values()]),
    // Each other presentation of one scheme of an alternative, the rest of it valid.
    ...security.alternatives.flatMap((a) =>
      a.length < 2
        ? []
        : schemes
            .filter((s) => a.includes(s.scheme))
            .flatMap((s) =>
              s.others.map((b) =>
                joined(`${b.name}, the rest of its alternative valid`, [
                  ...a.filter((x) => x !== s.scheme).flatMap((x) => valid.get(x.name) ?? []),
                  b,
                ]),
              ),
            ),
    ),
  ].map(of);
}

describe('one validation of requests: the judgments and the mock agree case by case', function () {
  this.timeout(60_000);
  let folder: string;
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'judged-requests-'));
  });
  after(() => rm(folder, { recursive: true, force: true }));

  describe('the bundled contract: the creates', () => {
    const cases = model.creates.flatMap(bodyCases);
    let server: MockServer;
    let answered: Verdict[] = [];
    before(async () => {
      server = await startMock();
      answered = [];
      for (const c of cases) answered.push(mockVerdict(await send(server, c)));
    });
    after(() => server.close());

    it(`${cases.length} requests: the same verdict on each (rule, and the pointers of a schema refusal)`, () => {
      const judged = cases.map((c) => judgedVerdict(c, jc));
      assert.deepEqual(disagreements(cases, judged, answered), []);
      // Not vacuous: every rule refuses some case, and the valid requests are accepted.
      const rules = new Set(judged.map((v) => v.rule));
      for (const rule of ['accepted', 'credentials', 'media-type', 'json', 'schema']) assert.ok(rules.has(rule as Verdict['rule']), rule);
      for (const [i, c] of cases.entries()) if (c.name.endsWith(': a valid request')) assert.equal(answered[i]?.rule, 'accepted', c.name);
    });

    it('the charset rule on both sides: UTF-8 (absent, any case, quoted) accepted, any other charset refused 415', () => {
      const judged = cases.map((c) => judgedVerdict(c, jc));
      const charsets = cases.flatMap((c, i) =>
        /charset=/.test(c.headers['Content-Type'] ?? '') ? [{ c, judged: judged[i], answered: answered[i] }] : [],
      );
      assert.ok(charsets.length >= 6, String(charsets.length));
      for (const { c, judged: j, answered: a } of charsets) {
        const utf8 = /charset="?utf-8"?$/i.test(c.headers['Content-Type'] ?? '');
        assert.equal(j?.rule, utf8 ? 'accepted' : 'media-type', c.name);
        assert.equal(a?.rule, utf8 ? 'accepted' : 'media-type', c.name);
      }
    });

    it('the comparison can fail: the judgments as they stood before (any charset accepted) disagree on exactly the other charsets', () => {
      const charsetBlind: Judge = (exchange, context, op) => {
        const header = exchange.request.headers['content-type'];
        const wanted = context.model.get(op).requestMediaType ?? 'application/json';
        return mediaTypeFault(header, wanted)?.kind === 'charset' ? [] : judgeRequestMediaType(exchange, context, op);
      };
      const before = JUDGES.map(([rule, judge]) => [rule, rule === 'media-type' ? charsetBlind : judge] as const);
      const found = disagreements(
        cases,
        cases.map((c) => judgedVerdict(c, jc, before)),
        answered,
      );
      const expected = cases.filter((c) => /charset=(?!"?utf-8"?$)./i.test(c.headers['Content-Type'] ?? '')).map((c) => c.name);
      assert.ok(expected.length >= 2 * model.creates.length, expected.join());
      assert.deepEqual(
        found.map((line) => line.slice(0, line.indexOf(': the judgments'))),
        expected,
      );
    });

    it('the comparison can fail: a mock answer paired with another case is reported, naming the case and both verdicts', () => {
      const judged = cases.map((c) => judgedVerdict(c, jc));
      const shifted = [...answered.slice(1), answered[0] ?? { rule: 'accepted' }];
      const found = disagreements(cases, judged, shifted);
      assert.ok(found.length > 0);
      assert.match(found[0] ?? '', /^\S+: .+: the judgments \{"rule":"[a-z-]+".*\}, the mock \{"rule":"[a-z-]+".*\}$/);
    });
  });

  describe('a grown contract: every create and change (merge patch, replace), one create under an API key', () => {
    const doc = grownContract();
    const grown = judgeContexts(doc).strict;
    const operations = grown.model.operations.filter((op) => op.requestRef !== undefined);
    const cases = operations.flatMap(bodyCases);
    let server: MockServer;
    let answered: Verdict[] = [];
    before(async () => {
      const contractPath = join(folder, 'grown.json');
      await writeFile(contractPath, JSON.stringify(doc));
      server = await startMock({ contractPath });
      answered = [];
      for (const c of cases) answered.push(mockVerdict(await send(server, c)));
    });
    after(() => server.close());

    it(`${operations.length} operations with a JSON body, ${cases.length} requests: the same verdict on each`, () => {
      const roles = new Set(operations.map((op) => op.role));
      for (const role of ['create', 'update']) assert.ok(roles.has(role as OperationModel['role']), [...roles].join());
      assert.ok(
        operations.some((op) => op.requestMediaType !== 'application/json'),
        'a merge patch',
      );
      assert.ok(
        operations.some((op) => schemesOf(op.security).some((s) => s.carrier.kind === 'apiKey')),
        'an API key',
      );
      const judged = cases.map((c) => judgedVerdict(c, grown));
      assert.deepEqual(disagreements(cases, judged, answered), []);
      for (const [i, c] of cases.entries()) if (c.name.endsWith(': a valid request')) assert.equal(answered[i]?.rule, 'accepted', c.name);
    });
  });

  for (const [variant, alternatives] of Object.entries(VARIANTS)) {
    const doc = structuredClone(readContract()) as JsonObject & { components: { securitySchemes: Record<string, JsonObject> } };
    doc.components.securitySchemes = { ...doc.components.securitySchemes, ...SCHEMES };
    doc['security'] = alternatives.map((names) => Object.fromEntries(names.map((name) => [name, []])));
    const variantModel = operationsModel(doc);
    const op = variantModel.orderInfo;
    if (op === undefined) throw new Error('the contract has no order read');
    // The variant's own operations model (its security); the schemas are the bundled contract's.
    const context: JudgeContext = { ...jc, model: variantModel };
    const cases = securityCases(variant, op, op.security);
    it(`security: ${variant} (${cases.length} requests)`, async () => {
      const contractPath = join(folder, `${variant.replace(/\W+/g, '-')}.json`);
      await writeFile(contractPath, JSON.stringify(doc));
      const server = await startMock({ contractPath });
      try {
        const answered: Verdict[] = [];
        for (const c of cases) answered.push(mockVerdict(await send(server, c)));
        const judged = cases.map((c) => judgedVerdict(c, context));
        assert.deepEqual(disagreements(cases, judged, answered), []);
        const rules = new Set(judged.map((v) => v.rule));
        assert.ok(rules.has('accepted') && rules.has('credentials'), [...rules].join());
      } finally {
        await server.close();
      }
    });
  }
});
