/**
 * What a check gets: the configuration, the operations model and the contract at both levels (the
 * judgments' context), an HTTP client that records every exchange, the discovered lots, the
 * systematic create corpus, seeded extra bodies, and the write budget (reserved per operation for
 * its spec-level cases first).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { isObject, type JsonObject, type JsonValue, type OpenApiDocument } from '../contract/document.js';
import type { Level } from '../contract/levels.js';
import {
  orderRead,
  type CreateOperationId,
  type OperationId,
  type OperationsModel,
  type ParamModel,
} from '../contract/operations-model.js';
import type { CompiledContract } from '../contract/schemas.js';
import { ANSWER_LIMITS } from '../judgments/answer.js';
import { ACCEPT_ENCODING } from '../judgments/content-coding.js';
import { judgeContexts } from '../judgments/context.js';
import type { JudgeContext, Violation } from '../judgments/exchange.js';
import { DEFAULT_REJECTED_TOKEN, type ConformanceConfig } from './config.js';
import { curlOf, type ReproduceOptions } from './reproduce.js';
import { withoutUserinfo } from '../redaction/redactor.js';
import {
  baseBody,
  carriesMarker,
  createCorpus,
  derivationOf,
  acceptsMember,
  generateBody,
  parameterValue,
  memberClasses,
  tagged,
  uniqueValue,
  withMarkers,
  writable,
  type CorpusBody,
  type Derivation,
  type DiscoveredLot,
} from './data.js';
import { Expect } from './expect.js';
import { CheckFailure, CheckNotRun, CheckSkipped } from './failure.js';
import { HttpClient, type Exchange, type HttpRequest } from './http.js';
import type { OperationGroup } from '../report/results.js';
import { basicCredentials, BASIC_USER, credentialsFor, withQuery, type CredentialParts } from '../checks/credentials.js';
import { parseJsonText } from '../util/json.js';

export type { DiscoveredLot } from './data.js';

/** How a request body is framed and addressed, where a case varies it (`CheckContext.sendToCreate`). */
export interface RequestFraming {
  /** The Content-Type (default `application/json`); `null`: none at all. */
  contentType?: string | null;
  /** Chunked transfer coding, no Content-Length. */
  chunked?: boolean;
  /** Another path than the operation's, already encoded. */
  path?: string;
}

export interface ContextOptions {
  config: ConformanceConfig;
  /** The base URL actually used (the in-process mock's when `config.baseUrl` is absent). */
  baseUrl: string;
  document: OpenApiDocument;
  /** Epoch ms after which no request is sent (`--deadline`); absent: no bound. */
  deadline?: number;
  /** Certificates (PEM) trusted for https:// besides Node's bundled CAs (`--ca FILE`). */
  ca?: readonly string[];
}

/** How `CheckContext.request` builds a request to an operation. */
export interface RequestOptions {
  params?: Record<string, string>;
  query?: [string, string][];
  body?: unknown;
  headers?: Record<string, string>;
  write?: boolean;
  /** Instead of the operation's own credentials (the credential checks). */
  credentials?: CredentialParts;
}

/**
 * --max-writes, spent so that each create operation's spec-level cases are served first: the budget
 * is reserved up front per operation (one at a time, in turn, up to each one's need); then for the
 * other writes the run's checks plan (`Check.extraWrites`), one each, in check order. Which writes
 * get the budget is so decided before any is sent, never by which request comes first: the verdicts
 * do not depend on --concurrency. A reservation a check does not use is not given to another; a
 * write nobody planned uses only what no one has reserved.
 */
export class WriteBudget {
  used = 0;
  private readonly reserved = new Map<CreateOperationId, number>();
  private readonly planned = new Set<string>();
  constructor(
    readonly max: number,
    needs: ReadonlyMap<CreateOperationId, number>,
    extras: readonly string[] = [],
  ) {
    let left = max;
    const want = new Map(needs);
    while (left > 0 && [...want.values()].some((n) => n > 0)) {
      for (const [op, n] of want) {
        if (n <= 0 || left <= 0) continue;
        this.reserved.set(op, (this.reserved.get(op) ?? 0) + 1);
        want.set(op, n - 1);
        left--;
      }
    }
    for (const key of new Set(extras)) {
      if (left <= 0) break;
      this.planned.add(key);
      left--;
    }
  }

  private get held(): number {
    return [...this.reserved.values()].reduce((a, b) => a + b, 0) + this.planned.size;
  }

  /** Takes one write; `spec` writes of an operation use its reservation first. */
  take(op: CreateOperationId, spec: boolean): boolean {
    const mine = this.reserved.get(op) ?? 0;
    if (spec && mine > 0) {
      this.reserved.set(op, mine - 1);
      this.used++;
      return true;
    }
    return this.unreserved();
  }

  /** Takes the planned write `key` (its reservation, once), or else what no one has reserved. */
  takeExtra(key: string): boolean {
    if (this.planned.delete(key)) {
      this.used++;
      return true;
    }
    return this.unreserved();
  }

  private unreserved(): boolean {
    if (this.used + this.held < this.max) {
      this.used++;
      return true;
    }
    return false;
  }
}

/**
 * What the write budget reads of a check (`checks/types.ts`'s `Check` has it): whether it writes, and
 * the extra writes it plans. Declared here, so the context does not import the checks that use it.
 */
export interface WritingCheck {
  write?: boolean;
  extraWrites?(ctx: CheckContext): Promise<string[]>;
}

/**
 * The check each piece of asynchronous work belongs to (several run at once). One instance for the
 * process: Node 20 visits every AsyncLocalStorage ever entered at each async resource it creates, so
 * one per context made the fault table (hundreds of runs in one process) slower with every run.
 */
const RUNNING = new AsyncLocalStorage<{ ctx: CheckContext; check: string }>();

export class CheckContext {
  readonly config: ConformanceConfig;
  readonly http: HttpClient;
  readonly expect: Expect;
  readonly model: OperationsModel;
  readonly contracts: Record<Level, CompiledContract>;
  readonly judge: JudgeContext;
  /** 2xx answers to POST requests, counted against --max-writes or not (records the server says it created). */
  postsAccepted = 0;
  private budget: WriteBudget | undefined;
  private planned: readonly WritingCheck[] = [];
  private readonly memos = new Map<string, Promise<unknown>>();
  private readonly credentialCache = new Map<OperationId, CredentialParts>();
  /** The keys (chosen by the client) the run's creates send, per operation, as JSON texts. */
  private readonly sentKeys = new Map<CreateOperationId, Set<string>>();

  constructor(options: ContextOptions) {
    this.config = options.config;
    this.http = new HttpClient({
      baseUrl: options.baseUrl,
      timeoutMs: options.config.timeoutMs,
      ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
      sender: () => this.currentCheck,
      concurrency: options.config.concurrency,
      headers: { 'x-mock-session': options.config.mockSession },
    });
    const { config } = options;
    const reproduce: ReproduceOptions = {
      baseUrl: withoutUserinfo(options.baseUrl),
      token: config.token,
      rejectedToken: config.rejectedToken,
      rejectedTokenIsDefault: config.rejectedToken === DEFAULT_REJECTED_TOKEN,
      basic: { credential: basicCredentials(config.token), user: BASIC_USER },
      ...(config.caPath !== undefined ? { caPath: config.caPath } : {}),
    };
    this.expect = new Expect([config.token], (request, before) => curlOf(request, reproduce, before));
    this.judge = judgeContexts(options.document)[options.config.level];
    this.contracts = this.judge.contracts;
    this.model = this.judge.model;
  }

  /** The check whose work this is (requests that time out name it); `setup` outside any check of this context. */
  get currentCheck(): string {
    const work = RUNNING.getStore();
    return work?.ctx === this ? work.check : 'setup';
  }

  /** Runs `fn` (and everything it starts) as the work of check `id`. */
  as<T>(id: string, fn: () => T): T {
    return RUNNING.run({ ctx: this, check: id }, fn);
  }

  /** Requests meant to create a record (`createRecord`), sent so far: what counts against --max-writes. */
  get writes(): number {
    return this.budget?.used ?? 0;
  }

  /** The operation's path with its parameter (the order number) URL-encoded. */
  path(id: OperationId, number?: string): string {
    const op = this.model.get(id);
    return this.model.pathOf(id, Object.fromEntries(op.pathParams.map((p) => [p, number ?? this.config.orderNumber])));
  }

  bearer(token: string = this.config.token): Record<string, string> {
    return { authorization: `Bearer ${token}` };
  }

  /**
   * The credentials of an operation, as its security states (`credentials.ts`): the first alternative the
   * configured values can satisfy; none for an operation without security. A secured operation whose
   * alternatives none can satisfy is refused before the run (`run.ts`), so here it gets the token as a
   * bearer token, which the server then refuses.
   */
  credentialsOf(op: OperationId): CredentialParts {
    let found = this.credentialCache.get(op);
    if (found === undefined) {
      const security = this.model.get(op).security;
      found = !security.secured
        ? { headers: {}, query: [] }
        : (credentialsFor(security, { token: this.config.token, byScheme: this.config.credentials })?.parts ?? {
            headers: this.bearer(),
            query: [],
          });
      this.credentialCache.set(op, found);
    }
    return found;
  }

  /**
   * A request to any operation of the contract with its credentials: its path parameters filled in
   * (URL-encoded), query parameters appended, a JSON body (sent with the operation's JSON media type).
   * `write`: it changes state (skipped with --read-only).
   */
  request(op: OperationId, options: RequestOptions = {}): Promise<Exchange> {
    return this.send(this.buildRequest(op, options));
  }

  /** The request `request` sends (skipped with --read-only when it writes). */
  buildRequest(op: OperationId, options: RequestOptions = {}): HttpRequest {
    if (options.write === true && this.config.readOnly)
      throw new CheckSkipped('--read-only: no request that changes state is sent', 'read-only');
    const model = this.model.get(op);
    const credentials = options.credentials ?? this.credentialsOf(op);
    const path = withQuery(this.model.pathOf(op, options.params), [...(options.query ?? []), ...credentials.query]);
    const body = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    return {
      operation: op,
      method: model.method,
      path,
      headers: {
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': model.requestMediaType ?? 'application/json' } : {}),
        ...credentials.headers,
        ...options.headers,
      },
      ...(body !== undefined ? { body } : {}),
    };
  }

  /** Sends any request (not counted as a write). */
  async send(request: HttpRequest): Promise<Exchange> {
    return this.counted(await this.http.send(request));
  }

  /** Counts a POST answered 2xx (a record the server says it created). */
  private counted(exchange: Exchange): Exchange {
    const { request, answer } = exchange;
    if (request.method === 'POST' && answer && answer.status >= 200 && answer.status < 300) this.postsAccepted++;
    return exchange;
  }

  /**
   * The GET of `number` (or of an already encoded `path`) with the token, asking for a compressed
   * answer (`Accept-Encoding: gzip, deflate, br`, as browsers and HTTP libraries do) unless `plain`.
   */
  getOrder(
    number: string,
    headers: Record<string, string> = this.credentialsOf(orderRead(this.model).op.operationId).headers,
    path = this.path(orderRead(this.model).op.operationId, number),
    plain = false,
  ): Promise<Exchange> {
    return this.send(this.orderRequest(number, headers, path, plain));
  }

  /** The request `getOrder` sends. */
  orderRequest(
    number: string,
    headers: Record<string, string> = this.credentialsOf(orderRead(this.model).op.operationId).headers,
    path = this.path(orderRead(this.model).op.operationId, number),
    plain = false,
  ): HttpRequest {
    const { op } = orderRead(this.model);
    return {
      operation: op.operationId,
      method: op.method,
      path,
      headers: { accept: 'application/json', ...(plain ? {} : { 'accept-encoding': ACCEPT_ENCODING }), ...headers },
    };
  }

  /**
   * A POST to a create operation (invalid bodies, credential probes). Never sent with --read-only; not
   * counted against --max-writes. `framing.contentType`: `null` sends no Content-Type at all;
   * `framing.chunked`: the body in chunked transfer coding, without Content-Length; `framing.path`:
   * another path than the operation's (a near miss of it).
   */
  sendToCreate(
    id: CreateOperationId,
    body: Buffer | JsonObject | unknown[] | string,
    headers: Record<string, string> = this.credentialsOf(id).headers,
    framing: RequestFraming = {},
  ): Promise<Exchange> {
    return this.send(this.createRequest(id, body, headers, framing));
  }

  /** The request `sendToCreate` sends (skipped with --read-only). */
  createRequest(
    id: CreateOperationId,
    body: Buffer | JsonObject | unknown[] | string,
    headers: Record<string, string> = this.bearer(),
    framing: RequestFraming = {},
  ): HttpRequest {
    if (this.config.readOnly) throw new CheckSkipped('--read-only: no POST request is sent', 'read-only');
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const contentType = framing.contentType === undefined ? 'application/json' : framing.contentType;
    return {
      operation: id,
      method: this.model.get(id).method,
      path: framing.path ?? withQuery(this.path(id), this.credentialsOf(id).query),
      headers: { ...(contentType === null ? {} : { 'content-type': contentType }), accept: 'application/json', ...headers },
      body: bytes,
      ...(framing.chunked === true ? { chunked: true } : {}),
    };
  }

  /**
   * Sends `request` on a connection that has just carried an authenticated request (the GET of the
   * main order with the token, on the same kept-alive connection), as a client that keeps its
   * connection sends its next request: a server that keeps authentication per connection shows it
   * here. The authenticated GET is a request of the run like any other (the whole-run checks judge it).
   */
  async afterAuthenticated(request: HttpRequest): Promise<Exchange> {
    const primer = this.primer();
    if (primer === undefined) return this.fresh(request);
    return this.http.sequence(async (send) => {
      const first = await send(primer);
      const exchange = await send(request);
      exchange.after = `${primer.method} ${primer.path} with the token${first.answer ? ` (answered ${first.answer.status})` : ''}`;
      exchange.before = [primer];
      return this.counted(exchange);
    });
  }

  /**
   * The authenticated request a credential case is sent after: the GET of the main order with its
   * credentials, else the first GET of the contract without path parameters (a list); none when the
   * contract has neither.
   */
  private primer(): HttpRequest | undefined {
    if (this.model.orderInfo !== undefined) return this.orderRequest(this.config.orderNumber, undefined, undefined, true);
    const list = this.model.operations.find((o) => o.method === 'GET' && o.pathParams.length === 0 && o.secured);
    return list === undefined ? undefined : this.buildRequest(list.operationId);
  }

  /** Sends `request` on a new connection of its own (as the first request of a new client). */
  async fresh(request: HttpRequest): Promise<Exchange> {
    return this.counted(await this.http.fresh(request));
  }

  /**
   * A POST of a valid body, meant to create a record: counted against --max-writes (`spec`: a
   * spec-level case of the corpus; `extra`: the key of a write a check plans, `Check.extraWrites`;
   * `acceptEncoding`: asking for a compressed answer).
   */
  async createRecord(
    id: CreateOperationId,
    body: JsonObject,
    options: ({ spec: true } | { extra: string }) & {
      contentType?: string;
      chunked?: boolean;
      acceptEncoding?: boolean;
      keepKey?: boolean;
    },
  ): Promise<Exchange> {
    if (this.config.readOnly) throw new CheckSkipped('--read-only: no record is created', 'read-only');
    const budget = await this.writeBudget();
    if (!('extra' in options ? budget.takeExtra(options.extra) : budget.take(id, true)))
      throw new CheckNotRun(
        `--max-writes ${this.config.maxWrites} spent: no further record is created`,
        'write-budget',
        `--max-writes ${this.config.maxWrites}`,
      );
    const sent = 'extra' in options && options.keepKey !== true ? this.withNewKey(id, body, options.extra) : body;
    const own = this.credentialsOf(id).headers;
    const headers = options.acceptEncoding === true ? { ...own, 'accept-encoding': ACCEPT_ENCODING } : own;
    return this.sendToCreate(id, sent, headers, {
      ...(options.contentType !== undefined ? { contentType: options.contentType } : {}),
      ...(options.chunked === true ? { chunked: true } : {}),
    });
  }

  /** A planned extra create (`Check.extraWrites`), once per key: every check asking for `key` judges the same answer. */
  extraCreate(
    key: string,
    id: CreateOperationId,
    body: JsonObject,
    framing: { contentType?: string; chunked?: boolean; keepKey?: boolean } = {},
  ): Promise<Exchange> {
    return this.memo(key, () => this.createRecord(id, body, { extra: key, ...framing }));
  }

  /** A valid value of the key the client chooses for `id`'s records that no create of the run sent (a key never created). */
  freshKey(id: CreateOperationId, seedText: string): JsonValue | undefined {
    const resource = this.model.resourceOf(id);
    const member = this.model.create(id).members.find((m) => m.name === resource.key);
    if (member === undefined) return undefined;
    const keys = this.keysOf(id);
    const value = uniqueValue(this.derivation(id), {}, member, `${this.config.runMarker}/${seedText}`, keys);
    if (value !== undefined) keys.add(JSON.stringify(value));
    return value;
  }

  /**
   * A GET the run can ask anything of (a content coding): the order read of `--order-number`, else the
   * first GET of the contract without path parameters (a list); undefined when the contract has neither.
   */
  sampleGet(headers: Record<string, string>): Promise<Exchange> | undefined {
    if (this.model.orderInfo !== undefined)
      return this.getOrder(this.config.orderNumber, { ...this.credentialsOf(this.model.orderInfo.operationId).headers, ...headers });
    const op = this.model.operations.find((o) => o.method === 'GET' && o.pathParams.length === 0);
    return op === undefined ? undefined : this.request(op.operationId, { headers });
  }

  /** The keys (chosen by the client) of an operation's corpus and of its extra creates so far, as JSON texts. */
  private keysOf(id: CreateOperationId): Set<string> {
    let keys = this.sentKeys.get(id);
    if (keys === undefined) {
      keys = new Set();
      this.sentKeys.set(id, keys);
    }
    return keys;
  }

  /**
   * A key the client chooses is sent once per run: an extra create whose body has a key of the corpus or
   * of an earlier extra create (a body copied from the corpus) is sent as a copy with a new key (the
   * corpus bodies, unique among themselves, are sent as they are).
   */
  private withNewKey(id: CreateOperationId, body: JsonObject, seedText: string): JsonObject {
    const resource = this.model.resourceOf(id);
    if (resource.keyAssigned || body[resource.key] === undefined) return body;
    const keys = this.keysOf(id);
    const member = this.model.create(id).members.find((m) => m.name === resource.key);
    if (member === undefined || !keys.has(JSON.stringify(body[resource.key]))) {
      keys.add(JSON.stringify(body[resource.key]));
      return body;
    }
    const value = uniqueValue(this.derivation(id), body, member, `${this.config.runMarker}/${seedText}`, keys);
    if (value === undefined) return body;
    keys.add(JSON.stringify(value));
    return { ...body, [resource.key]: value };
  }

  /** The checks of the run, in order: their planned writes are reserved when the budget is made. */
  planWrites(checks: readonly WritingCheck[]): void {
    this.planned = checks.filter((c) => c.write === true);
  }

  /**
   * The budget (made once, when the lots are known): reserved for each create operation's spec-level
   * corpus, then for the planned writes of the run's checks, in check order.
   */
  private writeBudget(): Promise<WriteBudget> {
    return this.memo('write-budget', async () => {
      const needs = new Map<CreateOperationId, number>();
      for (const op of this.model.creates) needs.set(op.operationId, (await this.corpus(op.operationId)).length);
      const extras: string[] = [];
      for (const check of this.planned) extras.push(...((await check.extraWrites?.(this)) ?? []));
      this.budget = new WriteBudget(this.config.maxWrites, needs, extras);
      return this.budget;
    });
  }

  /**
   * A body of the operation's request schema: its required members, the lot-naming one naming the first
   * lot of the run, and a `record`'s own values where the schema accepts them (a replace of the record by itself).
   */
  async exampleBody(op: OperationId, record?: JsonObject): Promise<JsonObject> {
    const d = derivationOf(this.judge, op);
    const body = baseBody(d, (await this.lots())[0]?.id);
    for (const m of writable(this.model.get(op))) {
      const value = record?.[m.name];
      if (value !== undefined && acceptsMember(d, body, m.name, value)) body[m.name] = value;
    }
    return body;
  }

  /** A value of a parameter its schema accepts, seeded by the run's seed (`data.ts`'s `parameterValue`). */
  parameterValue(param: ParamModel): string {
    return parameterValue(param, this.config.seed);
  }

  /** The valid body the invalid ones are derived from: the first corpus body (fixed, seed-independent), every marker member set. */
  async validBody(op: CreateOperationId): Promise<JsonObject> {
    const [first] = await this.corpus(op);
    return withMarkers(this.derivation(op), { ...(first?.body ?? {}) }, `${this.config.runMarker}-invalid`);
  }

  /** Runs `make` once per key; later callers get the same result (a failure is shared too). */
  memo<T>(key: string, make: () => Promise<T>): Promise<T> {
    let found = this.memos.get(key) as Promise<T> | undefined;
    if (!found) {
      found = make();
      found.catch(() => undefined);
      this.memos.set(key, found);
    }
    return found;
  }

  /**
   * The first GET of `--order-number` with the token (shared by the order checks and lot discovery).
   * It asks for no content coding: a server whose compression is broken fails the coding check and
   * the cases that asked for one, and still gets every other check run.
   */
  orderExchange(): Promise<Exchange> {
    return this.memo('order', () => this.getOrder(this.config.orderNumber, undefined, undefined, true));
  }

  /** The lots of `--order-number`, in the order answered; the calling case is not run (with the reason) when there are none. */
  async lots(): Promise<DiscoveredLot[]> {
    const lots = await this.memo('lots', async (): Promise<DiscoveredLot[] | CheckNotRun> => {
      // A contract whose creates name no lot needs none.
      if (this.model.order === undefined) return [];
      const exchange = await this.orderExchange();
      const answer = exchange.answer;
      const blocker = `GET order ${this.config.orderNumber}`;
      if (exchange.notSent)
        return new CheckNotRun(
          `lots could not be discovered: ${exchange.error ?? ''}`,
          exchange.notSent.reason,
          exchange.notSent.blockedBy,
        );
      if (!answer)
        return new CheckNotRun(`lots could not be discovered: ${blocker} got no answer (${exchange.error ?? 'unknown'})`, 'setup', blocker);
      if (answer.status < 200 || answer.status > 299)
        return new CheckNotRun(`lots could not be discovered: ${blocker} answered ${answer.status}`, 'setup', blocker);
      const parsed = parseJsonText(answer.text, ANSWER_LIMITS);
      if (!parsed.ok)
        return new CheckNotRun(`lots could not be discovered: the order answer is not JSON (${parsed.reason})`, 'setup', blocker);
      const value = parsed.value;
      const { lotsMember, lotIdMember } = orderRead(this.model).links;
      const list = isObject(value) && Array.isArray(value[lotsMember]) ? value[lotsMember] : [];
      const found = list.filter(isObject).flatMap((lot) => {
        const id = lot[lotIdMember];
        return typeof id === 'number' && Number.isSafeInteger(id) ? [{ id, value: lot }] : [];
      });
      if (found.length === 0)
        return new CheckNotRun(
          `order ${this.config.orderNumber} has no lots with an integer ${lotIdMember}: create requests need a lot (pass --order-number of an order with lots)`,
          'no-lots',
          blocker,
        );
      return found;
    });
    if (lots instanceof CheckNotRun) throw lots;
    return lots;
  }

  /** What the cases of a create operation are derived from (its model and request schema at both levels). */
  derivation(id: CreateOperationId): Derivation {
    return derivationOf(this.judge, id);
  }

  /** The systematic corpus of valid bodies of a create operation (every value class, every lot up to the cap). */
  corpus(id: CreateOperationId): Promise<CorpusBody[]> {
    return this.memo(`corpus/${id}`, async () => {
      const resource = this.model.resourceOf(id);
      const corpus = createCorpus(
        this.derivation(id),
        await this.lots(),
        this.config.runMarker,
        resource.keyAssigned ? undefined : resource.key,
      );
      if (!resource.keyAssigned) for (const { body } of corpus) this.keysOf(id).add(JSON.stringify(body[resource.key]));
      return corpus;
    });
  }

  /**
   * The create of corpus body `index` (memoized: the spec and strict checks judge the same answers).
   * Every other one (odd `index`) asks for a compressed answer: which ones is fixed, never seeded.
   */
  corpusCreate(id: CreateOperationId, index: number): Promise<{ body: CorpusBody; exchange: Exchange }> {
    return this.memo(`corpus/${id}/${index}`, async () => {
      const body = (await this.corpus(id))[index];
      if (!body) throw new Error(`no corpus body ${index} for ${id}`);
      return { body, exchange: await this.createRecord(id, body.body, { spec: true, acceptEncoding: index % 2 === 1 }) };
    });
  }

  /**
   * A valid body for extra cases: generated from the contract (seeded by `key`), naming the first lot,
   * carrying the run marker in every string member a record is found by.
   */
  async body(id: CreateOperationId, key: string, members: 'all' | 'required' = 'all'): Promise<JsonObject> {
    const [lot] = await this.lots();
    const op = this.model.create(id);
    const body = generateBody(op, this.config.seed, `${id}/${key}`, members);
    const resource = this.model.resourceOf(id);
    const d = this.derivation(id);
    for (const member of op.members) {
      // json-schema-faker 0.6 may miss a bound (a minimum above its default range): such a value becomes the member's first valid class.
      if (body[member.name] !== undefined && !member.namesLot && !acceptsMember(d, body, member.name, body[member.name] ?? null)) {
        const valid = memberClasses(d, member, body)[0];
        if (valid !== undefined) body[member.name] = valid.value;
      }
      const value = body[member.name];
      if (member.namesLot && lot) body[member.name] = lot.id;
      else if (!resource.keyAssigned && member.name === resource.key)
        // A key the client chooses: new in every run (a duplicate is refused, rightly).
        body[member.name] =
          uniqueValue(this.derivation(id), body, member, `${this.config.runMarker}/${key}`, new Set([JSON.stringify(value)])) ??
          value ??
          null;
      else if (value !== undefined && carriesMarker(member))
        body[member.name] = tagged(this.derivation(id), body, member, value, `${this.config.runMarker}-${key}`) ?? value;
    }
    return body;
  }

  /** Throws the violations of a judgment as one CheckFailure (every violation listed). */
  verdict(exchange: Exchange | undefined, violations: Violation[]): void {
    const [first, ...rest] = violations;
    if (!first) return;
    const failure = this.expect.failure(exchange, first.rule, first.expected, [first, ...rest].map((v) => v.reason).join('; '));
    throw new CheckFailure(failure.details);
  }

  /** The exchange has an answer, or the case is not run (blocked) / failed (its own time-out, a closed connection). */
  sent(exchange: Exchange): void {
    if (exchange.notSent) throw new CheckNotRun(exchange.error ?? 'not sent', exchange.notSent.reason, exchange.notSent.blockedBy);
  }
}

export type { OperationGroup };
