/**
 * A small, correct reference implementation of a contract and its profile (node:http, fixture
 * orders), for the suite's self-test and its own tests. Each fault in `faults` breaks exactly one
 * behaviour, so a test can show that the check guarding that behaviour fails. Faults are `name` or
 * `name:operationId` (the hand-written table, `faults.ts`), or generated from the contract
 * (`generated-faults.ts`): `ignore|<operation>|<pointer>|<keyword>` accepts a request body that
 * breaks that keyword at that pointer; `answer|<operation>|<pointer>|<keyword>` answers a success
 * body that breaks it. It compresses its answers when asked (`Accept-Encoding`: gzip, deflate, br);
 * faults of that: `coding-unasked` (gzip without being asked), `coding-not-listed` (gzip whatever was
 * asked), `br-not-compressed` (labelled br, sent plain), `deflate-raw` (raw DEFLATE for deflate).
 * A check module brings the behaviour of a fault of its own (`overrides`, by name): it is applied to
 * every answer before it is sent, so a new check needs no edit here.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { isObject, readContract, type JsonObject, type JsonValue, type OpenApiDocument } from '../../contract/document.js';
import { loadFixtures, type FixtureSet } from '../../contract/fixtures.js';
import { orderRead, type CreateOperationId, type OperationId, type OperationsModel } from '../../contract/operations-model.js';
import type { KeywordError, KeywordValidator } from '../../contract/schemas.js';
import type { Level } from '../../contract/levels.js';
import { CHECK_MODULES } from '../../checks/index.js';
import type { CheckModule, FaultAnswer, FaultOverride } from '../../checks/define.js';
import { judgeContexts } from '../../judgments/context.js';
import { MOCK_ORDER_NUMBER, resolveConformanceConfig, type ConformanceConfig } from '../config.js';
import { orderNumberOf as numberIn } from '../../judgments/order-info.js';
import { unescapeToken } from '../../util/json-pointer.js';
import { closeIdleWhenQuiet } from '../../util/idle-close.js';
import { answerSchemaOf, brokenAnswer, type AnswerSchema } from './schema-faults.js';

export const REFERENCE_TOKEN = 'reference-token';

/** The suite's configuration of a run against a reference server: its token, and the bundled fixture order it serves (the mock's default one). */
export function referenceRunConfig(url: string, level: Level, seed: number, outputDir: string): ConformanceConfig {
  return resolveConformanceConfig({ baseUrl: url, token: REFERENCE_TOKEN, orderNumber: MOCK_ORDER_NUMBER, level, seed, outputDir });
}
const LIMIT = 1024 * 1024;

export interface ReferenceServer {
  url: string;
  close(): Promise<void>;
}

type Op = OperationId;

export interface ReferenceOptions {
  /** Every answer is delayed by this many ms (a slow but correct server). */
  delayMs?: number;
  /** The first `answers` answers are delayed by `delayMs` (a correct server on a machine busy for a moment). */
  slowStart?: { answers: number; delayMs: number };
  /** The contract it implements (default: the bundled one). */
  document?: OpenApiDocument;
  /** Serve https:// with this key and certificate (PEM) instead of plain HTTP. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /**
   * Close kept-alive connections idle for this many ms, without announcing it (no `Keep-Alive:
   * timeout` hint), as servers and load balancers may (RFC 9112 §9.5): `eager` closes an idle
   * connection when the time is up; `lazy` closes it, unanswered, when the next request arrives after
   * the time (the close and the request crossing, as the client sees it). A correct server either way.
   */
  idleClose?: { ms: number; how: 'eager' | 'lazy' };
  /** Further order numbers, each the copy of a fixture order (by its number) under that number. */
  orderAliases?: Readonly<Record<string, string>>;
  /** Counts what the server did to its connections (tests). */
  counters?: { connections: number; idleClosed: number };
  /** The check modules whose fault behaviours (`overrides`) it serves (default: every registered one). */
  checks?: readonly CheckModule[];
}

/** What every reference server of a contract reads and never changes: its model, the fixtures, the create validators, the success schemas. */
interface Basis {
  model: OperationsModel;
  fixtures: FixtureSet;
  validators: Map<OperationId, KeywordValidator>;
  /** Each operation's success body schema (inlined) and its strict validator. */
  answers: Map<OperationId, AnswerSchema>;
  /**
   * Members of the order header the hand-written faults break: the last numeric one (the first is
   * usually the record's id, which other checks read), the first `format: date` one.
   */
  header: { numeric?: string; date?: string };
}

/** The members of the order header (the order-info answer's `order.orderMember`) a hand-written fault breaks. */
function headerMembers(model: OperationsModel, answer: JsonObject | undefined): Basis['header'] {
  const properties = (schema: JsonValue | undefined): JsonObject => {
    const found = isObject(schema) ? schema['properties'] : undefined;
    return isObject(found) ? found : {};
  };
  const members = Object.entries(properties(properties(answer)[orderRead(model).links.orderMember]));
  const types = (schema: JsonValue): JsonValue[] => {
    const type = isObject(schema) ? schema['type'] : undefined;
    return Array.isArray(type) ? type : [type ?? null];
  };
  const numeric = members.findLast(([, schema]) => types(schema).some((t) => t === 'integer' || t === 'number'))?.[0];
  const date = members.find(([, schema]) => isObject(schema) && schema['format'] === 'date')?.[0];
  return { ...(numeric !== undefined ? { numeric } : {}), ...(date !== undefined ? { date } : {}) };
}
const bases = new WeakMap<OpenApiDocument, Basis>();
let bundled: OpenApiDocument | undefined;

/** Built once per contract document: the fault table starts hundreds of servers, and compiling the contract each time cost most of a start. */
function basisOf(document: OpenApiDocument = (bundled ??= readContract())): Basis {
  const known = bases.get(document);
  if (known) return known;
  const jc = judgeContexts(document).strict;
  const { model, contracts } = jc;
  const contract = contracts.strict;
  const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
  const answers = new Map(
    model.operations.flatMap((op) => {
      const answer = answerSchemaOf(jc, op);
      return answer !== undefined ? [[op.operationId, answer] as const] : [];
    }),
  );
  const made: Basis = {
    model,
    fixtures: loadFixtures(undefined, contract),
    validators: new Map(model.creates.map((op) => [op.operationId, contract.keywordValidator(ref(op.requestSchema ?? ''))])),
    answers,
    header: headerMembers(model, answers.get(orderRead(model).op.operationId)?.schema),
  };
  bases.set(document, made);
  return made;
}

/**
 * Date-time forms of the hand-written faults, from an ISO string (`toISOString`, ending in `Z`): each
 * one RFC 3339 §5.6 refuses and a lenient validator accepts. Faults `<name>:<operation>`.
 */
const DATE_TIME_FAULTS: Record<string, (iso: string) => string> = {
  'date-time-no-colon': (iso) => iso.replace('Z', '+0000'),
  'date-time-space': (iso) => iso.replace('T', ' '),
  'date-time-no-seconds': (iso) => `${iso.slice(0, 16)}Z`,
  'date-time-hour-24': (iso) => `${iso.slice(0, 11)}24:00:00Z`,
};

/** Forms RFC 3339 allows that a narrow validator refuses (the variation `date-time-rfc-edges`), one per server-assigned date-time in turn. */
const DATE_TIME_EDGES: ((iso: string) => string)[] = [(iso) => `${iso.slice(0, 19)}.123456789+05:30`, (iso) => iso.toLowerCase()];

/** A member name with letter case, `_` and `-` ignored (how a loosely binding framework compares names). */
const loose = (name: string): string => name.toLowerCase().replace(/[_-]/g, '');

/** The request's body comes in chunked transfer coding (RFC 9112 §7.1). */
const chunkedBody = (req: http.IncomingMessage): boolean => /\bchunked\b/i.test(req.headers['transfer-encoding'] ?? '');

/** The codings the reference server compresses with. */
const KNOWN_CODINGS = ['gzip', 'deflate', 'br'];

/** The coding to answer with: of the known ones the request accepts, the one of highest weight (the first listed on a tie). */
function codingFor(acceptEncoding: string | undefined): string | undefined {
  let best: { coding: string; q: number } | undefined;
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = Number(params.map((p) => /^q=([\d.]+)$/.exec(p)?.[1]).find((v) => v !== undefined) ?? '1');
    if (KNOWN_CODINGS.includes(name) && q > 0 && (best === undefined || q > best.q)) best = { coding: name, q };
  }
  return best?.coding;
}

export async function startReferenceServer(faults: readonly string[] = [], options: ReferenceOptions = {}): Promise<ReferenceServer> {
  const has = (name: string, op?: Op): boolean => faults.includes(name) || (op !== undefined && faults.includes(`${name}:${op}`));
  const basis = basisOf(options.document);
  /** The behaviours check modules declare for the faults asked for (`checks/define.ts`'s `overrides`), applied to every answer in turn. */
  const overrides: FaultOverride[] = (options.checks ?? CHECK_MODULES).flatMap((m) =>
    Object.entries(m.overrides).flatMap(([name, override]) => (faults.includes(name) ? [override] : [])),
  );
  const { model, fixtures, validators } = basis;
  /** `ignore|<op>|<pointer>|<keyword>` faults: request problems the server does not see. */
  const ignored = new Set(faults.filter((f) => f.startsWith('ignore|')).map((f) => f.slice('ignore|'.length)));
  const answering = faults.some((f) => f.startsWith('answer|'));
  const { op: orderOp, links: orderLinks } = orderRead(model);
  const INFO = orderOp.path.slice(0, orderOp.path.indexOf('{'));
  const CREATE = new Map(model.creates.map((op) => [op.path, op.operationId]));
  const ids = new Map<string, number>();
  let sequence = 0;
  const sequences = new Map<string, number>();

  /** Each operation's path, matched as written or after a normalization (`norm`, applied to both sides). */
  const routes = [
    { op: orderOp.operationId, prefix: INFO, param: true },
    ...model.creates.map((c) => ({ op: c.operationId, prefix: c.path, param: false })),
  ].map((r) => ({
    ...r,
    matches: (path: string, norm: (p: string) => string = (p) => p): boolean => {
      const p = norm(path);
      // The prefix normalized as the start of a path (a parameter after it), not as a path of its own.
      const prefix = r.param ? norm(`${r.prefix}x`).slice(0, -1) : norm(r.prefix);
      return r.param ? p.startsWith(prefix) && p.length > prefix.length && !p.slice(prefix.length).includes('/') : p === prefix;
    },
    /** The operation's own path for `path` (its parameter, the last segment, kept as sent). */
    served: (path: string): string => (r.param ? `${r.prefix}${path.replace(/\/+$/, '').split('/').pop() ?? ''}` : r.prefix),
  }));
  /**
   * Faults of routing, each `<name>:<operation>`: a near miss of the operation's path redirected to it
   * (a trailing slash, 307) or served as it (letter case ignored, any version segment, slashes merged).
   */
  const nearMiss = (path: string): { served: string; redirect: boolean } | undefined => {
    const loosely: [string, (p: string) => string, boolean][] = [
      ['path-trailing-slash-redirect', (p) => p.replace(/\/$/, ''), true],
      ['path-case-insensitive', (p) => p.toLowerCase(), false],
      ['path-any-version', (p) => p.replace(/\/v\d+(?=\/)/gi, '/v*'), false],
      ['path-merge-slashes', (p) => p.replace(/\/{2,}/g, '/'), false],
    ];
    for (const [fault, norm, redirect] of loosely)
      for (const route of routes) if (has(fault, route.op) && route.matches(path, norm)) return { served: route.served(path), redirect };
    return undefined;
  };

  /**
   * Answers `text`, compressed when the request asks for it (the coding of highest weight it lists
   * that the server knows, the first listed on a tie), as a correct server that compresses does.
   */
  const finish = (res: http.ServerResponse, status: number, headers: Record<string, string | number>, text: string): void => {
    if (overrides.length > 0) {
      const request = { method: res.req.method ?? 'GET', path: res.req.url ?? '/', headers: res.req.headers };
      const faulty = overrides.reduce<FaultAnswer>((answer, override) => override(request, answer), { status, headers, body: text });
      ({ status, body: text } = faulty);
      headers = { ...faulty.headers };
    }
    let body = Buffer.from(text);
    let coding = codingFor(res.req.headers['accept-encoding']);
    if (coding === undefined && has('coding-unasked') && res.req.headers['accept-encoding'] === undefined) coding = 'gzip';
    if (coding !== undefined && has('coding-not-listed')) coding = 'gzip';
    if (coding !== undefined) {
      body =
        coding === 'gzip'
          ? gzipSync(body)
          : coding === 'br'
            ? has('br-not-compressed')
              ? body
              : brotliCompressSync(body)
            : has('deflate-raw')
              ? deflateRawSync(body)
              : deflateSync(body);
      headers = { ...headers, 'content-encoding': coding, vary: 'accept-encoding' };
    }
    res.writeHead(status, { ...headers, 'content-length': body.length });
    res.end(body);
  };
  const send = (
    res: http.ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
    type = 'application/json',
  ): void => {
    finish(res, status, { 'content-type': type, ...headers }, JSON.stringify(body));
  };
  const problem = (
    res: http.ServerResponse,
    status: number,
    detail: string,
    extra: JsonObject = {},
    headers: Record<string, string> = {},
  ): void => {
    const body: JsonObject = {
      type: `https://reference.example/problems/${status}`,
      title: http.STATUS_CODES[status] ?? 'Error',
      status,
      detail,
      ...extra,
    };
    if (has('problem-no-type')) delete body['type'];
    if (has('plain-text-errors')) {
      finish(res, status, { 'content-type': 'text/plain', ...headers }, `${status} ${detail}`);
      return;
    }
    send(res, status, body, headers, 'application/problem+json');
  };

  /** Connections that have carried a request with the token (for the fault that keeps authentication per connection). */
  const authenticated = new WeakSet<object>();

  /** Bearer check; answers 401 (or a faulty alternative) and returns false when refused. */
  const authorized = (req: http.IncomingMessage, res: http.ServerResponse, op: Op): boolean => {
    const header = req.headers.authorization;
    let variant: 'missing' | 'non-bearer' | 'rejected' | 'malformed' | undefined;
    if (header === undefined || header.trim() === '' || /^Bearer\s*$/i.test(header)) variant = 'missing';
    else if (!/^Bearer /i.test(header)) variant = 'non-bearer';
    else if (header.slice(7).trim() !== REFERENCE_TOKEN) variant = /[\s",]/.test(header.slice(7).trim()) ? 'malformed' : 'rejected';
    // Faults of a partition class: the token under any scheme; a Basic credential whose password is the token;
    // a token that merely starts with the real one.
    if (variant === 'non-bearer' && has('token-any-scheme', op) && header?.split(' ')[1] === REFERENCE_TOKEN) variant = undefined;
    if (variant === 'non-bearer' && has('basic-password-accepted', op) && /^Basic /.test(header ?? '')) {
      const decoded = Buffer.from((header ?? '').slice(6), 'base64').toString('utf8');
      if (decoded.split(':')[1] === REFERENCE_TOKEN) variant = undefined;
    }
    if (variant === 'rejected' && has('token-prefix-match', op) && header?.slice(7).startsWith(REFERENCE_TOKEN)) variant = undefined;
    // Fault of the malformed class: the first word after the scheme is taken for the token, quotes stripped.
    if (
      variant === 'malformed' &&
      has('token-first-word', op) &&
      header
        ?.slice(7)
        .split(/[\s,]+/)[0]
        ?.replace(/"/g, '') === REFERENCE_TOKEN
    )
      variant = undefined;
    // Fault: the token refused on the first request of each connection (an authentication cache cold per connection).
    if (variant === undefined && has('auth-cold-connection') && !authenticated.has(req.socket)) {
      authenticated.add(req.socket);
      variant = 'rejected';
    }
    if (variant === undefined) authenticated.add(req.socket);
    // Fault: a connection that carried one authenticated request serves later requests with no credentials.
    if (variant === 'missing' && has('auth-per-connection', op) && authenticated.has(req.socket)) variant = undefined;
    if (variant === undefined || has(`auth-accepts-${variant}`, op)) return true;
    if (has(`auth-403-${variant}`, op) || has('auth-403')) {
      problem(res, 403, 'forbidden');
      return false;
    }
    const challenge =
      (variant === 'rejected' || variant === 'malformed') && !has('auth-no-invalid-token', op)
        ? 'Bearer realm="reference", error="invalid_token"'
        : 'Bearer realm="reference"';
    problem(res, 401, 'send a valid bearer token', {}, has('auth-no-challenge', op) ? {} : { 'www-authenticate': challenge });
    return false;
  };

  /** An order-info answer for `number` with nothing in it: the first fixture's shape, its numbers 0, its lists empty. */
  const emptyShell = (number: string): JsonObject => {
    const [first] = fixtures.orders.values();
    const { orderMember, orderNumberMember } = orderLinks;
    const shell: JsonObject = {};
    for (const [name, value] of Object.entries(first ?? {})) {
      if (Array.isArray(value)) shell[name] = [];
      else if (name === orderMember && isObject(value))
        shell[name] = Object.fromEntries(
          Object.entries(value).map(([member, v]) => [member, member === orderNumberMember ? number : typeof v === 'number' ? 0 : v]),
        );
      else shell[name] = value;
    }
    return shell;
  };

  /** The fixture order `number` under the number `as`. */
  const aliased = (number: string, as: string): ReturnType<typeof fixtures.orders.get> => {
    const order = fixtures.orders.get(number);
    if (!order) return undefined;
    const copy = structuredClone(order);
    const header = copy[orderLinks.orderMember];
    if (isObject(header)) header[orderLinks.orderNumberMember] = as;
    return copy;
  };

  const orderInfo = (req: http.IncomingMessage, res: http.ServerResponse, raw: string): void => {
    const op = orderOp.operationId;
    if (has('hang-order-info')) return; // never answers
    if (req.method !== 'GET') {
      problem(res, 405, 'use GET', {}, has('405-no-allow', op) ? {} : { allow: 'GET' });
      return;
    }
    if (!authorized(req, res, op)) return;
    // Faults of decoding: none, or twice (`%2541` read as `A`).
    const number = has('path-not-decoded') ? raw : has('path-decoded-twice') ? decodeTwice(raw) : decodeURIComponent(raw);
    const alias = options.orderAliases?.[number];
    let order = alias !== undefined ? aliased(alias, number) : fixtures.orders.get(number);
    if (!order && has('unknown-order-answers-first')) order = [...fixtures.orders.values()][0];
    // Faults of a partition class: lookups that find a real order for an unknown number resembling it.
    if (!order && has('order-prefix-match'))
      order = [...fixtures.orders.values()].find((o) => number.startsWith(String(numberIn(model, o))));
    if (!order && has('order-case-insensitive'))
      order = [...fixtures.orders.values()].find((o) => String(numberIn(model, o)).toLowerCase() === number.toLowerCase());
    if (!order && has('order-trimmed')) order = fixtures.orders.get(number.trim());
    // Fault: any number is answered 200 with an empty order shell (that number, ids 0, every list empty).
    if (!order && has('unknown-order-empty-shell')) return send(res, 200, emptyShell(number));
    if (!order) {
      if (has('order-always-404')) return problem(res, 404, 'no such order');
      return problem(res, has('unknown-order-410') ? 410 : 404, `no order has the number "${number}"`);
    }
    if (has('order-always-404')) return problem(res, 404, 'no such order');
    // Fault: an existing order refused to the token (an access rule gone wrong).
    if (has('order-403')) return problem(res, 403, 'you may not read this order');
    // Fault: the order rendered as an HTML view, whatever the request accepts.
    if (has('order-html-view'))
      return finish(
        res,
        200,
        { 'content-type': 'text/html; charset=utf-8' },
        `<!DOCTYPE html><html><head><title>Order ${number}</title></head><body><h1>Order ${number}</h1></body></html>`,
      );
    const answer = structuredClone(order);
    const header = answer[orderLinks.orderMember];
    if (isObject(header)) {
      const { numeric, date } = basis.header;
      if (has('order-number-changed')) header[orderLinks.orderNumberMember] = `${number}-X`;
      if (has('order-wrong-type') && numeric !== undefined) header[numeric] = JSON.stringify(header[numeric]);
      if (has('order-date-format') && date !== undefined) header[date] = '02.11.2026';
    }
    // Fault: the order's JSON labelled text/html.
    const type = has('order-labelled-html') ? 'text/html; charset=utf-8' : 'application/json';
    send(res, has('order-203') ? 203 : 200, answering ? brokenAnswer(basis.answers.get(op), faults, op, answer) : answer, {}, type);
  };

  const create = (req: http.IncomingMessage, res: http.ServerResponse, op: CreateOperationId, bytes: Buffer, overLimit: boolean): void => {
    if (has('hang-creates')) return; // never answers
    if (req.method !== 'POST') {
      problem(res, 405, 'use POST', {}, has('405-no-allow', op) ? {} : { allow: 'POST' });
      return;
    }
    if (!authorized(req, res, op)) return;
    if (overLimit) return problem(res, 413, `the body is larger than ${LIMIT} bytes`);
    const type = (req.headers['content-type'] ?? '').toLowerCase();
    const [mediaType, ...params] = type.split(';').map((s) => s.trim());
    // Faults: text/plain taken for JSON; a body with no Content-Type at all parsed as JSON.
    const json =
      mediaType === 'application/json' ||
      has('accept-text-plain', op) ||
      (req.headers['content-type'] === undefined && has('no-content-type-json', op));
    if (!json || (params.length > 0 && has('charset-415', op))) return problem(res, 415, 'send application/json');
    // Fault: a chunked body read with its framing (chunk sizes and the last chunk) left in.
    if (chunkedBody(req) && has('chunked-raw', op))
      bytes = Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n0\r\n\r\n')]);
    let body: unknown;
    try {
      body = JSON.parse(bytes.toString('utf8'));
    } catch {
      return problem(res, has('malformed-422', op) ? 422 : 400, 'the body is not JSON', {
        errors: [{ pointer: '', detail: 'is not JSON' }],
      });
    }
    if (body === null && has('null-body-500', op)) return problem(res, 500, 'internal error');
    if (!isObject(body))
      return problem(res, has('non-object-422', op) ? 422 : 400, 'the body is not a JSON object', {
        errors: [{ pointer: '', detail: 'must be an object' }],
      });
    const members = model.create(op).members;
    const lotMember = members.find((m) => m.namesLot)?.name ?? '';
    // Fault: member names bound loosely (case-insensitive, _ and - ignored), as aliasing frameworks do:
    // a near miss of a member is taken for it (dropped when the member is there too).
    if (has('member-aliases', op))
      for (const key of Object.keys(body)) {
        const member = members.find((m) => m.name !== key && loose(m.name) === loose(key));
        if (!member) continue;
        if (!(member.name in body)) body[member.name] = body[key] ?? null;
        delete body[key];
      }
    let errors: KeywordError[] = validators.get(op)?.(body) ?? [];
    if (ignored.size > 0) errors = errors.filter((e) => !ignored.has(`${op}|${e.pointer}|${e.keyword}`));
    if (has('no-required', op)) errors = errors.filter((e) => e.detail !== 'is required');
    if (has('allow-unknown', op)) errors = errors.filter((e) => !e.detail.startsWith('is not a member'));
    if (has('no-bounds', op)) errors = errors.filter((e) => !/^must (be [<>]|NOT have)/.test(e.detail));
    if (has('wrong-type-pointer-root', op))
      errors = errors.map((e) => (e.detail.startsWith('must be of type') ? { ...e, pointer: '' } : e));
    if (has('first-problem-only', op)) errors = errors.slice(0, 1);
    // Fault: an unknown member's pointer built from its name unescaped (`/a/b` for a member "a/b", not `/a~1b`).
    if (has('pointer-unescaped', op))
      errors = errors.map((e) => (e.detail.startsWith('is not a member') ? { ...e, pointer: `/${unescapeToken(e.pointer.slice(1))}` } : e));
    if (has('store-wrong-type', op)) errors = errors.filter((e) => !e.detail.startsWith('must be of type'));
    // Faults of a value class: a large number, a string with non-ASCII characters refused.
    for (const m of members) {
      const v = body[m.name];
      if (has('reject-large-number', op) && m.type === 'number' && typeof v === 'number' && v >= 1_000_000)
        errors.push({ pointer: `/${m.name}`, detail: 'too large', keyword: 'maximum' });
      if (has('reject-non-ascii', op) && typeof v === 'string' && /[^\x20-\x7e]/.test(v))
        errors.push({ pointer: `/${m.name}`, detail: 'ASCII only', keyword: 'pattern' });
    }
    if (errors.length > 0)
      return problem(res, 400, `${errors.length} problem(s) in the body`, {
        errors: errors.map((e) => ({ pointer: e.pointer, detail: e.detail })),
      });
    const lotId = body[lotMember];
    let lot = typeof lotId === 'number' ? fixtures.lots.get(lotId) : undefined;
    // Fault: every lot of an order is taken for the order's first lot.
    if (lot && has('first-lot-only', op)) {
      const first = [...fixtures.lots].find(([, l]) => l.orderNumber === lot?.orderNumber)?.[0];
      if (first !== undefined) {
        lot = fixtures.lots.get(first) ?? lot;
        body[lotMember] = first;
      }
    }
    if (!lot) {
      const extra: JsonObject = has('unknown-lot-no-pointer', op)
        ? {}
        : { errors: [{ pointer: `/${lotMember}`, detail: `no lot has the id ${JSON.stringify(lotId)}` }] };
      return problem(res, has('unknown-lot-400', op) ? 400 : 422, 'unknown lot', extra);
    }
    const iso = new Date().toISOString();
    const broken = Object.keys(DATE_TIME_FAULTS).find((name) => has(name, op));
    let stamps = 0;
    const now = (): string =>
      has('created-format', op)
        ? new Date().toString()
        : broken !== undefined
          ? (DATE_TIME_FAULTS[broken]?.(iso) ?? iso)
          : has('date-time-rfc-edges')
            ? (DATE_TIME_EDGES[stamps++ % DATE_TIME_EDGES.length]?.(iso) ?? iso)
            : iso;
    const keep = has('keep-read-only', op);
    const lotValue: JsonObject = { ...lot.lot };
    const record: JsonObject = { ...body };
    for (const m of members) {
      if (m.readOnly) {
        if (keep && m.name in body) continue;
        if (m.type === 'integer') {
          // Fault: ids counted per lot (each lot's records numbered from 1).
          const key = has('id-per-lot', op) ? `${op}|${JSON.stringify(lotId)}` : op;
          ids.set(key, (ids.get(key) ?? 0) + 1);
          record[m.name] = has('constant-id', op) ? 1 : (ids.get(key) ?? 1);
        } else record[m.name] = now();
        continue;
      }
      if (m.name in body && !(m.defaultFrom && has('ignore-sent-default-from', op))) continue;
      if (m.defaultFrom) record[m.name] = lotValue[m.defaultFrom.member] ?? null;
      else if (m.defaultSequence) {
        // Faults of a sequence: one value; a counter kept per lot; a counter repeating after five values.
        const perLot = `${op}|${m.name}|${JSON.stringify(lotId)}`;
        if (has('sequence-per-lot')) sequences.set(perLot, (sequences.get(perLot) ?? 0) + 1);
        else sequence++;
        const n = has('constant-sequence')
          ? 1
          : has('sequence-per-lot')
            ? (sequences.get(perLot) ?? 1)
            : has('sequence-cycle-5')
              ? ((sequence - 1) % 5) + 1
              : sequence;
        record[m.name] = `${m.defaultSequence.prefix}${String(n).padStart(m.defaultSequence.width, '0')}`;
      } else if (m.default !== undefined)
        record[m.name] = !has('wrong-default', op) ? m.default : typeof m.default === 'boolean' ? !m.default : 'OPEN';
    }
    // Fault of a value class: a boolean sent true is answered false.
    for (const m of members) if (m.type === 'boolean' && has('ignore-sent-true', op)) record[m.name] = false;
    if (has('create-id-string', op)) record['id'] = JSON.stringify(record['id']);
    if (has('create-rejects', op)) return problem(res, 400, 'refused');
    send(res, has('create-200', op) ? 200 : 201, answering ? brokenAnswer(basis.answers.get(op), faults, op, record) : record);
  };

  let slow = options.slowStart?.answers ?? 0;
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    let size = 0;
    // Faults of the body limit: none at all, or a common server default (100 KiB) below the profile's;
    // the limit checked against Content-Length only, so a chunked body is read whole.
    const op = CREATE.get((req.url ?? '/').split('?')[0] ?? '/');
    const limit =
      has('no-size-limit') || (op !== undefined && chunkedBody(req) && has('chunked-no-limit', op))
        ? Infinity
        : has('limit-100kb')
          ? 100 * 1024
          : LIMIT;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => {
      const delay = (slow > 0 ? (slow--, options.slowStart?.delayMs) : undefined) ?? options.delayMs;
      // setTimeout(fn, 0) would cost every answer a timer tick (1 ms or more); a correct server answers at once.
      if (delay === undefined || delay <= 0) dispatch(req, res, chunks, size, limit);
      else setTimeout(() => dispatch(req, res, chunks, size, limit), delay);
    });
  };
  const server = options.tls ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, handler) : http.createServer(handler);
  // It runs in the suite's process: a request that came just as a kept-alive connection's idle limit passed in a stall is answered, not reset.
  closeIdleWhenQuiet(server);
  const dispatch = (req: http.IncomingMessage, res: http.ServerResponse, chunks: Buffer[], size: number, limit: number): void => {
    {
      // Faults of decoding: the target decoded before its query is cut off (`%3F` taken for `?`, `%23`
      // for `#`), or `%2F` taken for `/` (the route then has one segment more).
      const target = has('path-decoded-before-split')
        ? safeDecode(req.url ?? '/').replace(/#.*$/s, '')
        : has('path-slash-decoded')
          ? (req.url ?? '/').replace(/%2F/gi, '/')
          : (req.url ?? '/');
      let path = target.split('?')[0] ?? '/';
      const variant = routes.some((r) => r.matches(path)) ? undefined : nearMiss(path);
      if (variant?.redirect === true) return finish(res, 307, { location: variant.served }, '');
      if (variant) path = variant.served;
      const op = CREATE.get(path);
      if (path.startsWith(INFO) && path.length > INFO.length && !path.slice(INFO.length).includes('/'))
        orderInfo(req, res, path.slice(INFO.length));
      else if (op) create(req, res, op, Buffer.concat(chunks), size > limit);
      else if (has('unknown-path-500')) problem(res, 500, 'boom');
      else problem(res, has('unknown-path-400') ? 400 : 404, `no such path: ${path}`);
    }
  };
  if (options.idleClose) watchIdle(server, options.idleClose, options.counters);
  else if (options.counters) {
    const counters = options.counters;
    server.on('connection', () => (counters.connections += 1));
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `%`-decoded, or the text as it is where it is no valid percent-encoding. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Decoded twice (a fault): `%2541` → `%41` → `A`. */
function decodeTwice(text: string): string {
  return safeDecode(safeDecode(text));
}

/** Closes kept-alive connections idle for `ms` (no `Keep-Alive: timeout` hint is sent), eagerly or when the next request crosses the close. */
function watchIdle(
  server: http.Server,
  idle: NonNullable<ReferenceOptions['idleClose']>,
  counters: ReferenceOptions['counters'] = { connections: 0, idleClosed: 0 },
): void {
  // No idle time-out of Node's own (it would announce itself with `Keep-Alive: timeout=N`).
  server.keepAliveTimeout = 0;
  const lastAnswered = new WeakMap<object, number>();
  const timers = new WeakMap<object, NodeJS.Timeout>();
  server.on('connection', (socket) => {
    counters.connections += 1;
    socket.on('close', () => clearTimeout(timers.get(socket)));
  });
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    clearTimeout(timers.get(socket));
    const last = lastAnswered.get(socket);
    if (idle.how === 'lazy' && last !== undefined && performance.now() - last > idle.ms) {
      counters.idleClosed += 1;
      socket.destroy();
      return;
    }
    res.on('finish', () => {
      lastAnswered.set(socket, performance.now());
      if (idle.how === 'eager')
        timers.set(
          socket,
          setTimeout(() => {
            counters.idleClosed += 1;
            socket.destroy();
          }, idle.ms),
        );
    });
  });
}
