/**
 * The mock's request path, built once from the contract at start-up:
 * route (contract paths) → security (bearer) → validate input (media type, size, JSON, schema) →
 * handle (stateful handlers, or Prism for operations without one) → answer.
 * `/__mock` (state inspection and control) and CORS preflight are answered before routing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { listOperations, readContract, type JsonObject, type OperationSpec } from '../contract/document.js';
import { loadFixtures } from '../contract/fixtures.js';
import { CONTRACT_JSON_PATH } from '../contract/paths.js';
import { compileContract } from '../contract/schemas.js';
import { ADMIN_PREFIX, adminAllowed, handleAdmin, type AdminContext } from './admin.js';
import { checkBearer } from './auth.js';
import { checkJsonContentType, parseJson, readBody } from './body.js';
import type { MockConfig } from './config.js';
import { applyCors, isPreflight, preflightHeaders } from './cors.js';
import { create, orderBodies, orderInfo, raiseCounters, type CreateContext, type CreateOperation } from './handlers.js';
import { openJournal, type Journal } from './journal.js';
import { pickPreferred, preferredAnswers, preferredCode, type PreferredAnswer } from './prefer.js';
import { createPrismFallback, flatHeaders, queryOf, type Fallback } from './prism-fallback.js';
import { problem, ProblemError, PROBLEMS } from './problems.js';
import { recordModel } from './record-model.js';
import { sendBody, sendEmpty, sendProblem } from './respond.js';
import { createRouter } from './router.js';
import { MockState, SESSION_HEADER, sessionName } from './state.js';

/** The operations with a stateful handler, by operationId; every other operation goes to Prism. */
const STATEFUL: Record<string, { kind: 'order-info' } | { kind: 'create'; resource: string }> = {
  getOrderInfo: { kind: 'order-info' },
  createLotTransfer: { kind: 'create', resource: 'lot-transfers' },
  createTestSample: { kind: 'create', resource: 'test-samples' },
};

export interface MockApp {
  handle(req: IncomingMessage, res: ServerResponse): void;
  orderNumbers: string[];
  /** Lots of the fixtures, by id (for the CLI banner and tests). */
  lotIds: number[];
  /** Operations answered by Prism (no stateful handler). */
  prismOperations: string[];
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, params: Record<string, string>) => Promise<void>;

function printable(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 200 ? `${clean.slice(0, 200)}...` : clean;
}

function sendPreferred(res: ServerResponse, answer: PreferredAnswer): void {
  if (answer.contentType === undefined) sendEmpty(res, answer.status, answer.headers);
  else sendBody(res, answer.status, answer.contentType, answer.body, answer.headers);
}

export async function createMockApp(config: MockConfig): Promise<MockApp> {
  const log = config.log;
  const doc = readContract(config.contractPath ?? CONTRACT_JSON_PATH);
  const compiled = compileContract(doc, 'strict');
  const fixtures = loadFixtures(config.fixturesDir, compiled);
  const operations = listOperations(compiled.document);
  const router = createRouter(operations);
  const state = new MockState(config.maxSessions);
  const bodies = orderBodies(fixtures);
  const orderNumbers = [...fixtures.orders.keys()];

  let journal: Journal | undefined;
  const creates = new Map<string, CreateOperation>();
  for (const operation of operations) {
    const stateful = STATEFUL[operation.operationId];
    if (stateful?.kind !== 'create') continue;
    const requestSchema = operation.requestBody?.content.get('application/json');
    const answerSchema = operation.responses.find((r) => r.status === '201')?.content.get('application/json');
    if (!requestSchema || !answerSchema)
      throw new Error(`${operation.operationId}: the contract has no application/json request body or 201 answer`);
    creates.set(operation.operationId, {
      resource: stateful.resource,
      model: recordModel(compiled.document, operation.operationId, requestSchema, answerSchema),
      validate: compiled.validator(requestSchema),
    });
  }
  const byResource = new Map([...creates.values()].map((op) => [op.resource, op]));

  if (config.stateFile !== undefined) {
    const stateFile = config.stateFile;
    const opened = await openJournal(stateFile, log, (entry) => {
      if (entry.op === 'reset') {
        state.reset(entry.session);
        return;
      }
      const op = byResource.get(entry.resource);
      if (!op) {
        log(`state file ${stateFile}: unknown resource "${entry.resource}" skipped`);
        return;
      }
      const session = state.session(entry.session, true);
      raiseCounters(state, session, op, entry.record);
      state.add(session, op.resource, JSON.stringify(entry.record));
    });
    journal = opened.journal;
    if (opened.replayed > 0) log(`state file ${stateFile}: ${opened.replayed} entries replayed`);
  }

  const createContext: CreateContext = { state, lots: fixtures.lots, log, ...(journal ? { journal } : {}) };
  const adminContext: AdminContext = {
    state,
    orderNumbers,
    resources: [...byResource.keys()],
    log,
    ...(config.contractPath !== undefined ? { contractPath: config.contractPath } : {}),
    ...(journal ? { journal } : {}),
    ...(config.adminToken !== undefined ? { adminToken: config.adminToken } : {}),
  };
  const authPolicy = { tokens: config.tokens, rejectTokens: config.rejectTokens };
  const authorize = (req: IncomingMessage): void => {
    const result = checkBearer(req.headers.authorization, authPolicy);
    if (result instanceof ProblemError) throw result;
  };

  const handlers = new Map<OperationSpec, Handler>();
  const preferred = new Map<OperationSpec, Map<string, PreferredAnswer>>();
  const fallbackOperations: OperationSpec[] = [];
  for (const operation of operations) {
    preferred.set(operation, preferredAnswers(operation));
    const stateful = STATEFUL[operation.operationId];
    const createOp = creates.get(operation.operationId);
    if (stateful?.kind === 'order-info') {
      const param = operation.pathParams[0] ?? 'number';
      handlers.set(operation, (req, res, params) => {
        authorize(req);
        sendBody(res, 200, 'application/json', orderInfo(bodies, params[param] ?? ''));
        return Promise.resolve();
      });
    } else if (createOp) {
      handlers.set(operation, async (req, res) => {
        authorize(req);
        const session = sessionName(req.headers[SESSION_HEADER]);
        checkJsonContentType(req.headers['content-type']);
        const body = parseJson(await readBody(req, config.bodyLimitBytes));
        const json = await create(createContext, createOp, session, body);
        sendBody(res, 201, 'application/json', json);
      });
    } else {
      fallbackOperations.push(operation);
    }
  }

  let fallback: Fallback | undefined;
  if (fallbackOperations.length > 0) {
    fallback = await createPrismFallback(compiled.document);
    for (const operation of fallbackOperations) {
      const prism = fallback;
      handlers.set(operation, async (req, res) => {
        const url = new URL(req.url ?? '/', 'http://mock.invalid');
        let body: unknown;
        if (operation.requestBody) {
          const raw = await readBody(req, config.bodyLimitBytes);
          const text = raw.toString('utf8');
          try {
            body = (req.headers['content-type'] ?? '').includes('json') && text !== '' ? (JSON.parse(text) as unknown) : text;
          } catch {
            body = text;
          }
        }
        const answer = await prism({
          method: req.method ?? 'GET',
          path: url.pathname,
          query: queryOf(url),
          headers: flatHeaders(req),
          body,
        });
        sendBody(res, answer.status, undefined, answer.body, answer.headers);
      });
    }
  }

  const dispatch = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const rawUrl = req.url ?? '/';
    const pathname = rawUrl.split('?', 1)[0] ?? '/';
    applyCors(req, res, { origins: config.corsOrigins });
    if (!pathname.startsWith('/')) throw problem('invalidPath', 'The request target must be an absolute path starting with "/".');
    const isAdmin = pathname === ADMIN_PREFIX || pathname.startsWith(`${ADMIN_PREFIX}/`);
    if (req.method === 'OPTIONS') {
      const allowed = isAdmin ? adminAllowed(adminContext, pathname) : router.allowed(pathname);
      if (!allowed) throw problem('notFound', `There is no resource at ${printable(pathname)}.`);
      const headers = isPreflight(req) ? preflightHeaders(allowed) : {};
      return sendEmpty(res, 204, { ...headers, Allow: [...allowed, 'OPTIONS'].join(', ') });
    }
    if (isAdmin) return handleAdmin(adminContext, req, res, pathname);
    const route = router.route(req.method ?? 'GET', pathname);
    if (route.kind === 'not-found') {
      throw problem('notFound', `There is no operation at ${printable(pathname)}; the contract (contract/openapi.yaml) lists the paths.`);
    }
    if (route.kind === 'method-not-allowed') {
      const allow = [...route.allow, 'OPTIONS'].join(', ');
      throw problem('methodNotAllowed', `${printable(pathname)} allows only ${allow}.`, undefined, { Allow: allow });
    }
    if (config.latencyMs > 0) await sleep(config.latencyMs);
    const prefer = req.headers.prefer;
    const code = preferredCode(Array.isArray(prefer) ? prefer.join(', ') : prefer);
    if (code !== undefined) {
      return sendPreferred(
        res,
        pickPreferred(preferred.get(route.operation) ?? new Map<string, PreferredAnswer>(), code, route.operation.operationId),
      );
    }
    const handler = handlers.get(route.operation);
    if (!handler) throw new Error(`no handler for ${route.operation.operationId}`);
    await handler(req, res, route.params);
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    if (!config.quiet) {
      res.on('finish', () => {
        log(`${printable(req.method ?? '?')} ${printable(req.url ?? '')} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms`);
      });
    }
    dispatch(req, res).catch((error: unknown) => {
      if (error instanceof ProblemError) {
        if (error.kind.status === 413) res.setHeader('Connection', 'close');
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
    });
  };

  return {
    handle,
    orderNumbers,
    lotIds: [...fixtures.lots.keys()],
    prismOperations: fallbackOperations.map((op) => op.operationId),
    async close() {
      await journal?.close();
    },
  };
}

export type { JsonObject };
