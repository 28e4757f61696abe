/**
 * What a check gets: the configuration, the contract at both levels, an HTTP client that records
 * every exchange, the discovered lots, seeded request bodies, and the write budget.
 */
import { isObject, listOperations, type JsonObject, type OpenApiDocument, type OperationSpec } from '../contract/document.js';
import { compileContract, type CompiledContract, type Validator } from '../contract/schemas.js';
import type { Level } from '../contract/levels.js';
import type { ConformanceConfig } from './config.js';
import { bodyModel, generateBody, subSeed, type BodyModel } from './data.js';
import { Expect, type Answered } from './expect.js';
import { CheckSkipped } from './failure.js';
import { HttpClient, type Exchange, type HttpRequest, type Target } from './http.js';
import { CREATE_OPERATIONS, type CreateOperationId, type OperationId } from './operations.js';

/** A lot of the `--order-number` order, as the server answered it. */
export interface DiscoveredLot {
  id: number;
  lotNumber?: string;
}

export interface ContextOptions {
  config: ConformanceConfig;
  /** The base URL actually used (the in-process mock's when `config.baseUrl` is absent). */
  baseUrl: string;
  document: OpenApiDocument;
  /** Epoch ms after which no request is sent. */
  deadline: number;
}

export class CheckContext {
  readonly config: ConformanceConfig;
  readonly http: HttpClient;
  readonly expect: Expect;
  readonly contracts: Record<Level, CompiledContract>;
  readonly operations: Map<OperationId, OperationSpec>;
  readonly models: Record<CreateOperationId, BodyModel>;
  /** Requests meant to create a record, sent so far. */
  writes = 0;
  /** 2xx answers to POST requests (records a server says it created). */
  created = 0;
  private readonly memos = new Map<string, Promise<unknown>>();

  constructor(options: ContextOptions) {
    this.config = options.config;
    this.http = new HttpClient({ baseUrl: options.baseUrl, timeoutMs: options.config.timeoutMs, deadline: options.deadline });
    this.expect = new Expect([options.config.token]);
    this.contracts = { spec: compileContract(options.document, 'spec'), strict: compileContract(options.document, 'strict') };
    this.operations = new Map(listOperations(options.document).map((op) => [op.operationId as OperationId, op]));
    const strictDoc = this.contracts.strict.document;
    this.models = {
      createLotTransfer: bodyModel(strictDoc, 'createLotTransfer'),
      createTestSample: bodyModel(strictDoc, 'createTestSample'),
    };
  }

  /** The validator of `#/components/schemas/<name>` at a level. */
  schema(level: Level, name: string): Validator {
    return this.contracts[level].validator({ $ref: `#/components/schemas/${name}` });
  }

  operation(id: OperationId): OperationSpec {
    const op = this.operations.get(id);
    if (!op) throw new Error(`the contract has no operation ${id}`);
    return op;
  }

  /** The operation's path with `number` URL-encoded. */
  path(id: OperationId, number?: string): string {
    const op = this.operation(id);
    return op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      encodeURIComponent(name === 'number' ? (number ?? this.config.orderNumber) : ''),
    );
  }

  bearer(token: string = this.config.token): Record<string, string> {
    return { authorization: `Bearer ${token}` };
  }

  /** Sends any request (not counted as a write). */
  send(request: HttpRequest): Promise<Exchange> {
    return this.http.send(request).then((exchange) => {
      if (request.method === 'POST' && exchange.answer && exchange.answer.status >= 200 && exchange.answer.status < 300) this.created++;
      return exchange;
    });
  }

  /** The GET of `number` with the token. */
  getOrder(number: string, headers: Record<string, string> = this.bearer()): Promise<Exchange> {
    return this.send({
      target: 'getOrderInfo',
      method: 'GET',
      path: this.path('getOrderInfo', number),
      headers: { accept: 'application/json', ...headers },
    });
  }

  /** A POST to a create operation. Never sent with --read-only; not counted as a write. */
  post(
    id: CreateOperationId,
    body: Buffer | JsonObject | unknown[] | string,
    headers: Record<string, string> = this.bearer(),
    contentType = 'application/json',
  ): Promise<Exchange> {
    if (this.config.readOnly) throw new CheckSkipped('--read-only: no POST request is sent');
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    return this.send({
      target: id,
      method: 'POST',
      path: this.path(id),
      headers: { 'content-type': contentType, accept: 'application/json', ...headers },
      body: bytes,
    });
  }

  /** A POST of a valid body, meant to create a record: counted against --max-writes. */
  write(id: CreateOperationId, body: JsonObject, contentType = 'application/json'): Promise<Exchange> {
    if (this.config.readOnly) throw new CheckSkipped('--read-only: no record is created');
    if (this.writes >= this.config.maxWrites)
      throw new CheckSkipped(`--max-writes ${this.config.maxWrites} reached: no further record is created`);
    this.writes++;
    return this.post(id, body, this.bearer(), contentType);
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

  /** The first GET of `--order-number` with the token (shared by the order checks and lot discovery). */
  orderExchange(): Promise<Exchange> {
    return this.memo('order', () => this.getOrder(this.config.orderNumber));
  }

  /** The lots of `--order-number`; skips the calling check (with the reason) when there are none. */
  async lots(): Promise<DiscoveredLot[]> {
    const lots = await this.memo('lots', async () => {
      const exchange = await this.orderExchange();
      const answer = exchange.answer;
      if (!answer)
        return `lots could not be discovered: GET order ${this.config.orderNumber} got no answer (${exchange.error ?? 'unknown'})`;
      if (answer.status < 200 || answer.status > 299)
        return `lots could not be discovered: GET order ${this.config.orderNumber} answered ${answer.status}`;
      let value: unknown;
      try {
        value = JSON.parse(answer.text);
      } catch {
        return `lots could not be discovered: the order answer is not JSON`;
      }
      const list = isObject(value) && Array.isArray(value['lots']) ? value['lots'] : undefined;
      const found = (list ?? [])
        .filter(isObject)
        .filter((lot) => Number.isSafeInteger(lot['id']))
        .map((lot) => ({ id: lot['id'] as number, ...(typeof lot['lotNumber'] === 'string' ? { lotNumber: lot['lotNumber'] } : {}) }));
      if (found.length === 0)
        return `order ${this.config.orderNumber} has no lots with an integer id: create requests need a lot id (pass --order-number of an order with lots)`;
      return found;
    });
    if (typeof lots === 'string') throw new CheckSkipped(lots);
    return lots;
  }

  /** The lot every create request names (chosen by the seed among the discovered lots). */
  async lot(): Promise<DiscoveredLot> {
    const lots = await this.lots();
    return lots[subSeed(this.config.seed, 'lot') % lots.length] as DiscoveredLot;
  }

  /**
   * A valid body for a create operation, generated from the contract (seeded by `key`), naming the
   * discovered lot and carrying the run marker in every string member a record is found by.
   */
  async body(id: CreateOperationId, key: string, members: 'all' | 'required' = 'all'): Promise<JsonObject> {
    const lot = await this.lot();
    const body = generateBody(this.models[id], this.config.seed, `${id}/${key}`, members);
    const marker = this.config.runMarker;
    body['fk_lot_id'] = lot.id;
    for (const name of ['source_scancode', 'target_scancode', 'sample_number']) {
      if (typeof body[name] === 'string') body[name] = `${marker}-${key}-${body[name]}`;
    }
    if (typeof body['notes'] === 'string') body['notes'] = `${marker} ${body['notes']}`;
    return body;
  }

  /** The targets of the contract's operations. */
  static readonly creates = CREATE_OPERATIONS;
}

export type { Answered, Target };
