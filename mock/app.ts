/**
 * The mock's request path, built once from the contract at start-up:
 * framing (RFC 9112, `framing.ts`) → route (contract paths) → security (bearer) → validate input
 * (media type, size, JSON, schema) → Prefer, injected faults (`fault-stage.ts`) and latency → handle
 * (stateful handlers, or Prism for operations without one) → answer.
 * `/__mock` (state inspection and control) and CORS preflight are answered before routing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { listOperations, readContract, type JsonObject, type OperationSpec } from '../contract/document.js';
import { loadFixtures } from '../contract/fixtures.js';
import { CONTRACT_JSON_PATH } from '../contract/paths.js';
import { compileContract } from '../contract/schemas.js';
import { ADMIN_PREFIX, adminAllowed, handleAdmin, type AdminContext } from './admin.js';
import { authPolicy, checkBearer } from './auth.js';
import { readBody } from './body.js';
import { BodyBudget } from './body-budget.js';
import type { MockConfig } from './config.js';
import { controlPolicy, guardControl, RESET_HEADER } from './control-guard.js';
import { checkFraming } from './framing.js';
import { applyCors, isPreflight, preflightHeaders } from './cors.js';
import { orderBodies, type CreateContext, type CreateOperation } from './handlers.js';
import { checkHost, hostPolicy } from './host.js';
import type { FaultAdmin } from './fault-admin.js';
import { FaultRules } from './fault-rules.js';
import { chooseInjection, inject, type FaultStageContext } from './fault-stage.js';
import { choosePreference, preferredAnswers, type Preference, type PreferredAnswer } from './prefer.js';
import { createPrismFallback, flatHeaders, queryOf, type Fallback } from './prism-fallback.js';
import { problem, ProblemError, PROBLEMS } from './problems.js';
import { recordModel } from './record-model.js';
import { sendBody, sendEmpty, sendProblem } from './respond.js';
import { allowHeader, createRouter, routeRequest } from './router.js';
import { SESSION_HEADER } from './state.js';
import { openStore } from './store/index.js';
import { counterSlots, recordPlanner } from './store/plan.js';
import { createSteps, orderInfoSteps, type OperationSteps } from './steps.js';
import { parseTarget, type Target } from './target.js';

/** The operations with a stateful handler, by operationId; every other operation goes to Prism. */
const STATEFUL: Record<string, { kind: 'order-info' } | { kind: 'create'; resource: string }> = {
  getOrderInfo: { kind: 'order-info' },
  createLotTransfer: { kind: 'create', resource: 'lot-transfers' },
  createTestSample: { kind: 'create', resource: 'test-samples' },
};

/** What the mock serves, as the server and the CLI banner tell it. */
export interface ServedContent {
  /** The fixture order numbers served. */
  orderNumbers: string[];
  /** The ids of the fixture lots (valid `fk_lot_id` values). */
  lotIds: number[];
  /** Operations answered by Prism because they have no stateful handler. */
  prismOperations: string[];
}

export interface MockApp extends ServedContent {
  handle(req: IncomingMessage, res: ServerResponse): void;
  close(): Promise<void>;
}

function printable(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 200 ? `${clean.slice(0, 200)}...` : clean;
}

function sendPreferred(res: ServerResponse, answer: PreferredAnswer): void {
  if (answer.contentType === undefined) sendEmpty(res, answer.status, answer.headers);
  else sendBody(res, answer.status, answer.contentType, answer.body, answer.headers);
}

/** The real, stateful answer of a request, or the error it prefers. */
function answerWith(res: ServerResponse, step: OperationSteps, input: unknown, preference: Preference): void | Promise<void> {
  if (preference.kind === 'error') return step.prefer?.(input, preference.code) ?? sendPreferred(res, preference.answer);
  return step.handle(input, res);
}

/** OPTIONS on a known path: 204 with `Allow` (and the CORS preflight headers when it is a preflight). */
function answerOptions(
  req: IncomingMessage,
  res: ServerResponse,
  allowed: string[] | undefined,
  pathname: string,
  extraHeaders: readonly string[],
): void {
  if (!allowed) throw problem('notFound', `There is no resource at ${printable(pathname)}.`);
  const headers = isPreflight(req) ? preflightHeaders(allowed, extraHeaders) : {};
  sendEmpty(res, 204, { ...headers, Allow: allowHeader(allowed) });
}

/** An operation without a stateful handler: Prism answers it (its own security, validation and Prefer). */
async function answerByPrism(
  prism: Fallback,
  operation: OperationSpec,
  req: IncomingMessage,
  res: ServerResponse,
  target: Target,
  bodyLimitBytes: number,
  budget: BodyBudget,
): Promise<void> {
  const url = new URL(`${target.pathname}${target.search}`, 'http://mock.invalid');
  let body: unknown;
  if (operation.requestBody) {
    const text = (await readBody(req, bodyLimitBytes, () => budget.admit(req, res))).toString('utf8');
    try {
      body = (req.headers['content-type'] ?? '').includes('json') && text !== '' ? (JSON.parse(text) as unknown) : text;
    } catch {
      body = text;
    }
  }
  const answer = await prism({ method: req.method ?? 'GET', path: url.pathname, query: queryOf(url), headers: flatHeaders(req), body });
  sendBody(res, answer.status, undefined, answer.body, answer.headers);
}

export async function createMockApp(config: MockConfig): Promise<MockApp> {
  const log = config.log;
  const doc = readContract(config.contractPath ?? CONTRACT_JSON_PATH);
  const compiled = compileContract(doc, 'strict');
  const fixtures = loadFixtures(config.fixturesDir, compiled);
  const operations = listOperations(compiled.document);
  const router = createRouter(operations);
  const bodies = orderBodies(fixtures);
  const orderNumbers = [...fixtures.orders.keys()];

  const creates = new Map<string, CreateOperation>();
  for (const operation of operations) {
    const stateful = STATEFUL[operation.operationId];
    if (stateful?.kind !== 'create') continue;
    const requestSchema = operation.requestBody?.content.get('application/json');
    const answerSchema = operation.responses.find((r) => r.status === '201')?.content.get('application/json');
    if (!requestSchema || !answerSchema)
      throw new Error(`${operation.operationId}: the contract has no application/json request body or 201 answer`);
    const model = recordModel(compiled.document, operation.operationId, requestSchema, answerSchema);
    creates.set(operation.operationId, {
      resource: stateful.resource,
      model,
      plan: recordPlanner(stateful.resource, model),
      validate: compiled.validator(requestSchema),
    });
  }
  const byResource = new Map([...creates.values()].map((op) => [op.resource, op]));

  // The state's one owner: memory, the journal (--state-file) or Redis (--store).
  const store = await openStore({
    ...(config.store !== undefined ? { store: config.store } : {}),
    ...(config.stateFile !== undefined ? { stateFile: config.stateFile } : {}),
    storePrefix: config.storePrefix,
    bodyLimitBytes: config.bodyLimitBytes,
    // A create or reset sent to Redis is waited for within the request's time limit.
    ...(config.requestTimeoutMs !== undefined ? { outcomeWaitMs: config.requestTimeoutMs } : {}),
    limits: {
      maxSessions: config.maxSessions,
      maxRecordsPerSession: config.maxRecordsPerSession,
      maxRecordedBytes: config.maxRecordedBytes,
    },
    slots: new Map([...byResource].map(([resource, op]) => [resource, counterSlots(resource, op.model)])),
    log,
  });
  const bodyBudget = new BodyBudget(config.maxBodyBytesInFlight);
  const createContext: CreateContext = { store, lots: fixtures.lots, log };
  // Session fault rules live in this process (docs/faults.md): at most one session more than --max-sessions (the default one).
  const faultRules = new FaultRules(config.maxSessions + 1);
  const faultStage: FaultStageContext = { rules: faultRules, log, quiet: config.quiet };
  const faultAdmin: FaultAdmin = { rules: faultRules, operations: [] };
  const adminContext: AdminContext = {
    store,
    orderNumbers,
    lots: [...fixtures.lots.values()].map(({ lot, orderNumber }) => ({ id: lot.id, lotNumber: lot.lotNumber, orderNumber })),
    resources: [...byResource.keys()],
    faults: faultAdmin,
    log,
    ...(config.contractPath !== undefined ? { contractPath: config.contractPath } : {}),
    ...(config.adminToken !== undefined ? { adminToken: config.adminToken } : {}),
  };
  const auth = authPolicy(config.tokens, config.rejectTokens);
  const hosts = hostPolicy(config.host, config.allowedHosts);
  const control = controlPolicy(config.corsOrigins);
  const cors = { origins: config.corsOrigins };

  // The steps of every operation with a stateful handler: validate input, then handle (the real answer).
  const steps = new Map<OperationSpec, OperationSteps>();
  const preferred = new Map<OperationSpec, Map<string, PreferredAnswer>>();
  const fallbackOperations: OperationSpec[] = [];
  for (const operation of operations) {
    preferred.set(operation, preferredAnswers(operation));
    const stateful = STATEFUL[operation.operationId];
    const createOp = creates.get(operation.operationId);
    if (stateful?.kind === 'order-info') {
      steps.set(operation, orderInfoSteps(bodies, operation.pathParams[0] ?? 'number'));
    } else if (createOp) {
      steps.set(operation, createSteps(createContext, createOp, config.bodyLimitBytes, bodyBudget));
    } else {
      fallbackOperations.push(operation);
    }
  }
  // Faults act in `serve`, so on the operations with a stateful handler (Prism answers the others).
  faultAdmin.operations = [...steps.keys()].map((operation) => operation.operationId);

  const fallbacks = new Map<OperationSpec, Fallback>();
  if (fallbackOperations.length > 0) {
    const prism = await createPrismFallback(compiled.document);
    for (const operation of fallbackOperations) fallbacks.set(operation, prism);
  }

  /**
   * Prefer, faults and latency act only on a request that would be served; then the real answer, the
   * preferred error, or the injected fault (`fault-stage.ts`).
   */
  const serve = (
    req: IncomingMessage,
    res: ServerResponse,
    operation: OperationSpec,
    step: OperationSteps,
    input: unknown,
  ): void | Promise<void> => {
    const preference = choosePreference(
      preferred.get(operation) ?? new Map<string, PreferredAnswer>(),
      req.headers.prefer,
      operation.operationId,
    );
    const injection = chooseInjection(faultRules, req.headers.prefer, req.headers[SESSION_HEADER], operation.operationId);
    if (injection) {
      const answer = () => answerWith(res, step, input, preference);
      const faulted = () => inject(faultStage, injection, req, res, creates.has(operation.operationId), answer);
      return config.latencyMs > 0 ? sleep(config.latencyMs).then(faulted) : faulted();
    }
    if (config.latencyMs > 0) return sleep(config.latencyMs).then(() => answerWith(res, step, input, preference));
    return answerWith(res, step, input, preference);
  };

  /**
   * The request path. Synchronous up to the first step that has to wait (reading a body, the store),
   * then a plain promise chain: a create is the hot path, and every async function on it would add a
   * promise and a turn of the microtask queue. Throws (or rejects with) a ProblemError for the client.
   */
  const dispatch = (req: IncomingMessage, res: ServerResponse): void | Promise<void> => {
    // The framing RFC 9112 forbids (no version, no or two Host lines, chunked on HTTP/1.0): 400.
    checkFraming(req);
    // Route: the target (origin- or absolute-form), the Host it names, then the contract's paths.
    const target = parseTarget(req.url ?? '/');
    const host = target.authority ?? req.headers.host;
    checkHost(hosts, host);
    const pathname = target.pathname;
    const method = req.method ?? 'GET';
    const isAdmin = pathname === ADMIN_PREFIX || pathname.startsWith(`${ADMIN_PREFIX}/`);
    if (isAdmin) {
      guardControl(control, req, res, host);
      if (method === 'OPTIONS') return answerOptions(req, res, adminAllowed(adminContext, pathname), pathname, [RESET_HEADER]);
      return handleAdmin(adminContext, req, res, pathname);
    }
    applyCors(req, res, cors);
    if (method === 'OPTIONS') return answerOptions(req, res, router.allowed(pathname), pathname, []);
    const route = routeRequest(router, method, pathname);
    const fallback = fallbacks.get(route.operation);
    if (fallback) return answerByPrism(fallback, route.operation, req, res, target, config.bodyLimitBytes, bodyBudget);
    const step = steps.get(route.operation);
    if (!step) throw new Error(`no handler for ${route.operation.operationId}`);
    // Security, then input validation: a refused request is answered as such whatever it prefers.
    checkBearer(req.headers.authorization, auth);
    const validated = step.validate(req, route.params, res);
    // Order info validates at once: no promise on the hot GET path.
    if (validated instanceof Promise) return validated.then((input) => serve(req, res, route.operation, step, input));
    return serve(req, res, route.operation, step, validated);
  };

  const fail = (req: IncomingMessage, res: ServerResponse, error: unknown): void => {
    if (error instanceof ProblemError) {
      // No 'Connection: close': Node reads and drops the rest of the body (bounded by the request
      // time-out), so a client still uploading reads this answer instead of a reset connection.
      sendProblem(res, error);
      return;
    }
    log(
      `internal error on ${printable(req.method ?? '?')} ${printable(req.url ?? '')}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendProblem(
      res,
      new ProblemError(PROBLEMS.internal, 'The mock failed unexpectedly on this request; it was logged and the mock keeps running.'),
    );
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    if (!config.quiet) {
      const started = performance.now();
      res.on('finish', () => {
        log(`${printable(req.method ?? '?')} ${printable(req.url ?? '')} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms`);
      });
    }
    let pending: void | Promise<void>;
    try {
      pending = dispatch(req, res);
    } catch (error) {
      fail(req, res, error);
      return;
    }
    pending?.catch((error: unknown) => fail(req, res, error));
  };

  return {
    handle,
    orderNumbers,
    lotIds: [...fixtures.lots.keys()],
    prismOperations: fallbackOperations.map((op) => op.operationId),
    async close() {
      await store.close();
    },
  };
}

export type { JsonObject };
