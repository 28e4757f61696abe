/**
 * What a check gets: the configuration, the operations model and the contract at both levels (the
 * judgments' context), an HTTP client that records every exchange, the discovered lots, the
 * systematic create corpus, seeded extra bodies, and the write budget (reserved per operation for
 * its spec-level cases first).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { isObject, type JsonObject, type OpenApiDocument } from '../contract/document.js';
import type { Level } from '../contract/levels.js';
import type { CreateOperationId, OperationId, OperationsModel } from '../contract/operations-model.js';
import type { CompiledContract } from '../contract/schemas.js';
import { ANSWER_LIMITS } from '../judgments/answer.js';
import { ACCEPT_ENCODING } from '../judgments/content-coding.js';
import { judgeContexts } from '../judgments/context.js';
import type { JudgeContext, Violation } from '../judgments/exchange.js';
import { basicCredentials, BASIC_USER } from './checks/auth.js';
import { DEFAULT_REJECTED_TOKEN, type ConformanceConfig } from './config.js';
import { curlOf, type ReproduceOptions } from './reproduce.js';
import { withoutUserinfo } from '../redaction/redactor.js';
import {
  carriesMarker,
  createCorpus,
  derivationOf,
  generateBody,
  tagged,
  type CorpusBody,
  type Derivation,
  type DiscoveredLot,
} from './data.js';
import type { Check } from './checks/types.js';
import { Expect } from './expect.js';
import { CheckFailure, CheckNotRun, CheckSkipped } from './failure.js';
import { HttpClient, type Exchange, type HttpRequest, type OperationGroup } from './http.js';
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
  private planned: readonly Check[] = [];
  private readonly memos = new Map<string, Promise<unknown>>();

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
    headers: Record<string, string> = this.bearer(),
    path = this.path(this.model.orderInfo.operationId, number),
    plain = false,
  ): Promise<Exchange> {
    return this.send(this.orderRequest(number, headers, path, plain));
  }

  /** The request `getOrder` sends. */
  orderRequest(
    number: string,
    headers: Record<string, string> = this.bearer(),
    path = this.path(this.model.orderInfo.operationId, number),
    plain = false,
  ): HttpRequest {
    return {
      operation: this.model.orderInfo.operationId,
      method: this.model.orderInfo.method,
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
    headers: Record<string, string> = this.bearer(),
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
      path: framing.path ?? this.path(id),
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
    return this.http.sequence(async (send) => {
      const primer = this.orderRequest(this.config.orderNumber, this.bearer(), undefined, true);
      const first = await send(primer);
      const exchange = await send(request);
      exchange.after = `${primer.method} ${primer.path} with the token${first.answer ? ` (answered ${first.answer.status})` : ''}`;
      exchange.before = [primer];
      return this.counted(exchange);
    });
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
    options: ({ spec: true } | { extra: string }) & { contentType?: string; chunked?: boolean; acceptEncoding?: boolean },
  ): Promise<Exchange> {
    if (this.config.readOnly) throw new CheckSkipped('--read-only: no record is created', 'read-only');
    const budget = await this.writeBudget();
    if (!('extra' in options ? budget.takeExtra(options.extra) : budget.take(id, true)))
      throw new CheckNotRun(
        `--max-writes ${this.config.maxWrites} spent: no further record is created`,
        'write-budget',
        `--max-writes ${this.config.maxWrites}`,
      );
    const headers = options.acceptEncoding === true ? { ...this.bearer(), 'accept-encoding': ACCEPT_ENCODING } : this.bearer();
    return this.sendToCreate(id, body, headers, {
      ...(options.contentType !== undefined ? { contentType: options.contentType } : {}),
      ...(options.chunked === true ? { chunked: true } : {}),
    });
  }

  /** A planned extra create (`Check.extraWrites`), once per key: every check asking for `key` judges the same answer. */
  extraCreate(
    key: string,
    id: CreateOperationId,
    body: JsonObject,
    framing: { contentType?: string; chunked?: boolean } = {},
  ): Promise<Exchange> {
    return this.memo(key, () => this.createRecord(id, body, { extra: key, ...framing }));
  }

  /** The checks of the run, in order: their planned writes are reserved when the budget is made. */
  planWrites(checks: readonly Check[]): void {
    this.planned = checks.filter((c) => c.write === true);
  }

  /**
   * The budget (made once, when the lots are known): reserved for each create operation's spec-level
   * corpus, then for the planned writes of the run's checks, in check order.
   */
  private writeBudget(): Promise<WriteBudget> {
    return this.memo('write-budget', async () => {
      const needs = new Map<CreateOperationId, number>();
      for (const op of this.model.creates)
        needs.set(op.operationId as CreateOperationId, (await this.corpus(op.operationId as CreateOperationId)).length);
      const extras: string[] = [];
      for (const check of this.planned) extras.push(...((await check.extraWrites?.(this)) ?? []));
      this.budget = new WriteBudget(this.config.maxWrites, needs, extras);
      return this.budget;
    });
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
    return this.memo('order', () => this.getOrder(this.config.orderNumber, this.bearer(), undefined, true));
  }

  /** The lots of `--order-number`, in the order answered; the calling case is not run (with the reason) when there are none. */
  async lots(): Promise<DiscoveredLot[]> {
    const lots = await this.memo('lots', async (): Promise<DiscoveredLot[] | CheckNotRun> => {
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
      const { lotsMember, lotIdMember } = this.model.order;
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
    return this.memo(`corpus/${id}`, async () => createCorpus(this.derivation(id), await this.lots(), this.config.runMarker));
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
    for (const member of op.members) {
      const value = body[member.name];
      if (member.namesLot && lot) body[member.name] = lot.id;
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
