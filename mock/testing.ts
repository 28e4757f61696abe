/** Helpers for tests that talk to a mock over real HTTP on loopback. */
import { request as httpRequest } from 'node:http';
import { listOperations, readContract } from '../contract/document.js';
import { loadFixtures, type FixtureSet } from '../contract/fixtures.js';
import { operationsModel, orderRead, withOrder, type CreateOperationId, type OrderedModel } from '../contract/operations-model.js';
import { compileContract } from '../contract/schemas.js';
import { createOperation, type CreateOperation } from './handlers.js';
import { createMockServer, type MockServer, type ServerConfig } from './server.js';
import { MemoryStore } from './store/memory.js';
import { counterSlots } from './store/plan.js';
import type { StoredResource } from './store/types.js';
import type { CounterSlot } from './store/types.js';
import { recordCheck, type RecordCheck } from './record-check.js';

/** The bundled contract's paths, read from its operations model (the creates in contract order). */
const MODEL = operationsModel(readContract());
const [TRANSFERS, SAMPLES] = MODEL.createIds;
/** Order info's path up to its parameter: append an order number. */
export const ORDER_PATH = orderRead(MODEL).op.path.slice(0, orderRead(MODEL).op.path.indexOf('{'));
export const TRANSFERS_PATH = TRANSFERS === undefined ? '' : MODEL.create(TRANSFERS).path;
export const SAMPLES_PATH = SAMPLES === undefined ? '' : MODEL.create(SAMPLES).path;
export const AUTH = { Authorization: 'Bearer dev-token' };
export const JSON_AUTH = { ...AUTH, 'Content-Type': 'application/json' };

/** A quiet mock on a free loopback port (no log lines unless the test passes `log`). */
export function startMock(config: Partial<ServerConfig> = {}): Promise<MockServer> {
  return createMockServer({ port: 0, quiet: true, log: () => undefined, ...config });
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with exact bytes (bodies and headers fetch would refuse or rewrite). */
export function rawRequest(
  url: string,
  options: { method?: string; path: string; headers?: Record<string, string | number>; body?: Buffer | string },
): Promise<RawAnswer> {
  const base = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers ?? {},
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

export async function postJson(server: MockServer, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, { method: 'POST', headers: { ...JSON_AUTH, ...headers }, body: JSON.stringify(body) });
}

/** The bundled contract (strict), its operations model and fixtures, for tests of the handlers and steps. */
export interface BundledContract {
  model: OrderedModel;
  fixtures: FixtureSet;
  /** A create operation as the mock builds it (`app.ts`): resource, status, record model, planner, validator. */
  createOperation(id: CreateOperationId): CreateOperation;
  /** The counter slots of every create's records, by resource. */
  slots: Map<string, CounterSlot[]>;
  /** Every recorded resource: its counter slots and key member (what the app gives its store). */
  resources: Map<string, StoredResource>;
  /** The check of stored records against the bundled contract (what the app gives its store). */
  check: RecordCheck;
  /** A fresh in-memory store knowing the counters of every create (limits generous unless given). */
  memoryStore(limits?: Partial<{ maxSessions: number; maxRecordsPerSession: number; maxRecordedBytes: number }>): Promise<MemoryStore>;
}

export function bundledContract(): BundledContract {
  const compiled = compileContract(readContract(), 'strict');
  const operations = listOperations(compiled.document);
  const model = withOrder(operationsModel(compiled.document));
  const createOperationOf = (id: CreateOperationId): CreateOperation => {
    if (!operations.some((operation) => operation.operationId === id)) throw new Error(`${id}: no such operation in the bundled contract`);
    return createOperation(compiled, model.create(id), model.resourceOf(id), model.order.lotResource);
  };
  const creates = model.createIds.map(createOperationOf);
  const slots = new Map(creates.map((op) => [op.resource, counterSlots(op.resource, op.model)]));
  const resources = new Map(
    model.createIds.map((id) => {
      const op = createOperationOf(id);
      const resource = model.resourceOf(id);
      return [op.resource, { slots: counterSlots(op.resource, op.model), key: resource.key, assigned: resource.keyAssigned }];
    }),
  );
  return {
    model,
    fixtures: loadFixtures(undefined, compiled),
    createOperation: createOperationOf,
    slots,
    resources,
    check: recordCheck(creates.map((op) => op.record)),
    memoryStore: (limits = {}) =>
      MemoryStore.open({
        limits: { maxSessions: 10, maxRecordsPerSession: 1000, maxRecordedBytes: 1 << 20, ...limits },
        resources,
        log: () => undefined,
      }),
  };
}
