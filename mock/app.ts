/**
 * The mock's wiring: built once from the contract at start-up, then the stages of the request
 * pipeline (`pipeline.ts`, shared with the proxy; `stages.ts`):
 * framing → target and Host → control paths (`/__mock`) or CORS → route → security → validate input
 * → prefer, injected faults (`fault-stage.ts`) and latency → answer (a stateful handler, or Prism for
 * an operation without one).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { listOperations, readContract, type JsonObject, type OperationSpec } from '../contract/document.js';
import { operationsModel } from '../contract/operations-model.js';
import { loadFixtures } from '../contract/fixtures.js';
import { CONTRACT_JSON_PATH } from '../contract/paths.js';
import { compileContract } from '../contract/schemas.js';
import { ADMIN_PREFIX, adminAllowed, handleAdmin, type AdminContext } from './admin.js';
import { AnswerBudget } from './answer-budget.js';
import { authPolicy, checkBearer } from './auth.js';
import { readBody } from './body.js';
import { BodyBudget, type BodyHold } from './body-budget.js';
import type { MockConfig } from './config.js';
import { controlPolicy, guardControl, RESET_HEADER } from './control-guard.js';
import { applyCors, isPreflight, preflightHeaders } from './cors.js';
import { createOperation, orderBodies, type CreateContext, type CreateOperation } from './handlers.js';
import { hostPolicy } from './host.js';
import type { FaultAdmin } from './fault-admin.js';
import { FaultRules, type FaultRuleStore } from './fault-rules.js';
import { chooseInjection, inject, type FaultStageContext, type Injection } from './fault-stage.js';
import { choosePreference, preferredAnswers, type Preference, type PreferredAnswer } from './prefer.js';
import { createPrismFallback, flatHeaders, PRISM_PACKAGE, queryOf, type Fallback } from './prism-fallback.js';
import { problem } from './problems.js';
import { recordCheck, recordStamp } from './record-check.js';
import { modelView } from './model-view.js';
import { pipelineHandler, printable, type Stage } from './pipeline.js';
import { sendBody, sendEmpty } from './respond.js';
import { allowHeader, createRouter, routeRequest } from './router.js';
import { isSessionName, SESSION_ANSWER_HEADER, SESSION_HEADER, sessionName } from './state.js';
import { openStore } from './store/index.js';
import { counterSlots } from './store/plan.js';
import { createSteps, orderInfoSteps, type CreateBudgets, type OperationSteps } from './steps.js';
import { DEFAULT_SESSION } from './store/types.js';
import { answered, framingStage, isControlPath, targetStage, type TargetedExchange } from './stages.js';
import type { Target } from './target.js';
import { requirePeers } from '../util/peer.js';
import { createRedactor } from '../redaction/redactor.js';

/** What the mock serves, as the server and the CLI banner tell it. */
export interface ServedContent {
  /** The fixture order numbers served. */
  orderNumbers: string[];
  /** The ids of the fixture lots (valid `fk_lot_id` values). */
  lotIds: number[];
  /** Operations answered by Prism because they have no stateful handler. */
  prismOperations: string[];
  /** The order-info path of the first fixture order (the banner's example); empty in proxy mode. */
  exampleOrderPath: string;
  /** The resources whose records `/__mock/<resource>` lists (one per create operation). */
  resources: string[];
}

/** What the mock's stages learn about a request, stage by stage. */
interface MockExchange extends TargetedExchange {
  operation: OperationSpec | undefined;
  params: Record<string, string>;
  step: OperationSteps | undefined;
  input: unknown;
  preference: Preference | undefined;
  /** The fault to inject (`Prefer: fault=` or a session rule), if any. */
  injection: Injection | undefined;
}

function newExchange(req: IncomingMessage, res: ServerResponse): MockExchange {
  // A literal of one shape (no spread): built once per request, on the hot path.
  return {
    req,
    res,
    target: undefined,
    host: undefined,
    pathname: '',
    method: req.method ?? 'GET',
    operation: undefined,
    params: {},
    step: undefined,
    input: undefined,
    preference: undefined,
    injection: undefined,
  };
}

export interface MockApp extends ServedContent {
  handle(req: IncomingMessage, res: ServerResponse): void;
  close(): Promise<void>;
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

/** The session a request names, or the default one (for an operation that does not read it). */
function sessionOrDefault(req: IncomingMessage): string {
  try {
    return sessionName(req.headers[SESSION_HEADER]);
  } catch {
    return DEFAULT_SESSION;
  }
}

/** An operation without a stateful handler: Prism answers it (its own security, validation and Prefer). */
async function answerByPrism(
  prism: Fallback,
  operation: OperationSpec,
  req: IncomingMessage,
  res: ServerResponse,
  target: Target,
  bodyLimitBytes: number,
  budgets: CreateBudgets,
): Promise<void> {
  const url = new URL(`${target.pathname}${target.search}`, 'http://mock.invalid');
  let body: unknown;
  if (operation.requestBody) {
    let held: BodyHold | undefined;
    const text = (await readBody(req, bodyLimitBytes, () => (held = budgets.bodies.admit(req, res)))).toString('utf8');
    try {
      body = (req.headers['content-type'] ?? '').includes('json') && text !== '' ? (JSON.parse(text) as unknown) : text;
    } catch {
      body = text;
    }
    held?.release();
  }
  const answer = await prism({ method: req.method ?? 'GET', path: url.pathname, query: queryOf(url), headers: flatHeaders(req), body });
  // Prism's answer is made for this request: a large one counts against the answer budget until it is sent.
  const size = Buffer.byteLength(answer.body);
  const session = sessionOrDefault(req);
  budgets.answers.take(session, size, () => `The answer of ${operation.operationId} in session "${session}"`).until(res);
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

  // The operations with a stateful handler, read from the operations model: order info and the creates
  // (each kept under its resource name); every other operation goes to Prism.
  const api = operationsModel(compiled.document);
  const creates = new Map<string, CreateOperation>();
  for (const operation of operations) {
    const createModel = api.creates.find((op) => op.operationId === operation.operationId);
    if (createModel === undefined) continue;
    creates.set(operation.operationId, createOperation(compiled, operation, createModel, api.order));
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
    // Stored records written under another contract version are checked before any is served.
    check: recordCheck([...byResource.values()].map((op) => op.record)),
    stamp: recordStamp(compiled.document),
    ...(config.setAsideInvalid !== undefined ? { setAside: config.setAsideInvalid } : {}),
    log,
  });
  const budgets: CreateBudgets = {
    bodies: new BodyBudget(config.maxBodyBytesInFlight),
    answers: new AnswerBudget(config.maxAnswerBytesInFlight),
  };
  const createContext: CreateContext = { store, lots: fixtures.lots, log };
  // Session fault rules (docs/faults.md): in the shared store when there is one (every replica applies
  // them), else in this process; at most one session more than --max-sessions (the default one).
  const faultRules: FaultRuleStore = store.faultRules?.(config.maxSessions + 1) ?? new FaultRules(config.maxSessions + 1);
  await faultRules.ready;
  const faultStage: FaultStageContext = { rules: faultRules, log, quiet: config.quiet };
  const faultAdmin: FaultAdmin = { rules: faultRules, operations: [] };
  const adminContext: AdminContext = {
    store,
    orderNumbers,
    lots: [...fixtures.lots.values()].map(({ lot, orderNumber }) => ({ id: lot.id, lotNumber: lot.lotNumber, orderNumber })),
    resources: [...byResource.keys()],
    model: Buffer.from(JSON.stringify(modelView(api, ADMIN_PREFIX, [...byResource.keys()]))),
    answers: budgets.answers,
    faults: faultAdmin,
    tokens: config.tokens.length > 0 ? 'listed' : 'any',
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
    const createOp = creates.get(operation.operationId);
    if (operation.operationId === api.orderInfo.operationId) {
      steps.set(operation, orderInfoSteps(bodies, operation.pathParams[0] ?? 'number'));
    } else if (createOp) {
      steps.set(operation, createSteps(createContext, createOp, config.bodyLimitBytes, budgets));
    } else {
      fallbackOperations.push(operation);
    }
  }
  // Faults act in `serve`, so on the operations with a stateful handler (Prism answers the others).
  faultAdmin.operations = [...steps.keys()].map((operation) => operation.operationId);

  const fallbacks = new Map<OperationSpec, Fallback>();
  if (fallbackOperations.length > 0) {
    // Prism is an optional peer dependency (util/peer.ts): only a contract with such operations needs it.
    requirePeers(
      [PRISM_PACKAGE],
      `the mock answers ${fallbackOperations.map((op) => op.operationId).join(', ')} (operations without a stateful handler) with Prism, so it`,
    );
    const prism = await createPrismFallback(compiled.document);
    for (const operation of fallbackOperations) fallbacks.set(operation, prism);
  }

  const fromModel = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the pipeline reached its ${what} stage without it`);
    return value;
  };
  /** The stages of the mock (see the module comment); each throws the problem it stands for. */
  const stages: Stage<MockExchange>[] = [
    framingStage(),
    targetStage(hosts),
    {
      name: 'control paths',
      run(x) {
        if (!isControlPath(x.pathname)) return undefined;
        guardControl(control, x.req, x.res, x.host);
        if (x.method === 'OPTIONS') {
          answerOptions(x.req, x.res, adminAllowed(adminContext, x.pathname), x.pathname, [RESET_HEADER]);
          return 'answered';
        }
        return handleAdmin(adminContext, x.req, x.res, x.pathname).then(answered);
      },
    },
    {
      name: 'CORS',
      run(x) {
        applyCors(x.req, x.res, cors);
        if (x.method !== 'OPTIONS') return undefined;
        answerOptions(x.req, x.res, router.allowed(x.pathname), x.pathname, []);
        return 'answered';
      },
    },
    {
      // A valid session a request names is answered back: its client (the conformance suite) sees that
      // this server keeps mock sessions, and which one holds what it created.
      name: 'session echo',
      run(x) {
        const named = x.req.headers[SESSION_HEADER];
        if (typeof named === 'string' && isSessionName(named)) x.res.setHeader(SESSION_ANSWER_HEADER, named);
        return undefined;
      },
    },
    {
      name: 'route',
      run(x) {
        const route = routeRequest(router, x.method, x.pathname);
        x.operation = route.operation;
        x.params = route.params;
        // Prism answers an operation without a stateful handler (its own security, validation and Prefer).
        const fallback = fallbacks.get(route.operation);
        if (fallback)
          return answerByPrism(fallback, route.operation, x.req, x.res, fromModel(x.target, 'target'), config.bodyLimitBytes, budgets).then(
            answered,
          );
        x.step = fromModel(steps.get(route.operation), `handler of ${route.operation.operationId}`);
        return undefined;
      },
    },
    {
      name: 'security',
      run(x) {
        checkBearer(x.req.headers.authorization, auth);
        return undefined;
      },
    },
    {
      name: 'validate',
      run(x) {
        const validated = fromModel(x.step, 'operation').validate(x.req, x.params, x.res);
        // Order info validates at once: no promise on the hot GET path.
        if (!(validated instanceof Promise)) {
          x.input = validated;
          return undefined;
        }
        return validated.then((input) => {
          x.input = input;
          return undefined;
        });
      },
    },
    {
      // Prefer, injected faults and latency act only on a request that would be served.
      name: 'prefer, faults and latency',
      run(x) {
        const operation = fromModel(x.operation, 'route');
        // A rule is taken only when the request names neither code= nor fault= (so choosePreference, which
        // refuses only a bad code=, cannot refuse a request whose rule was taken).
        const injection = chooseInjection(faultRules, x.req.headers.prefer, x.req.headers[SESSION_HEADER], operation.operationId);
        x.preference = choosePreference(
          preferred.get(operation) ?? new Map<string, PreferredAnswer>(),
          x.req.headers.prefer,
          operation.operationId,
        );
        const latency = config.latencyMs > 0 ? sleep(config.latencyMs).then(() => undefined) : undefined;
        // A rule kept in the shared store is looked up there (only for a session that holds one).
        if (injection instanceof Promise)
          return injection.then((chosen) => {
            x.injection = chosen;
            return latency;
          });
        x.injection = injection;
        return latency;
      },
    },
    {
      // The real, stateful answer, the preferred error, or the injected fault.
      name: 'answer',
      run(x) {
        const step = fromModel(x.step, 'operation');
        const preference = fromModel(x.preference, 'prefer');
        const answer = () => answerWith(x.res, step, x.input, preference);
        const injection = x.injection;
        const pending =
          injection === undefined
            ? answer()
            : inject(faultStage, injection, x.req, x.res, creates.has(fromModel(x.operation, 'route').operationId), answer);
        return pending instanceof Promise ? pending.then(answered) : 'answered';
      },
    },
  ];

  // The access log shows targets with the tokens the mock knows (--token, --admin-token) and credential
  // positions (`?access_token=...`) hidden: a token typed into a URL by mistake stays out of the log.
  const redactor = createRedactor([...config.tokens, ...(config.adminToken !== undefined ? [config.adminToken] : [])]);
  const handle = pipelineHandler<MockExchange>({
    stages,
    exchange: (req, res) => newExchange(req, res),
    log,
    quiet: config.quiet,
    who: 'mock',
    shownTarget: (req) => redactor.redact(req.url ?? ''),
  });

  return {
    handle,
    orderNumbers,
    lotIds: [...fixtures.lots.keys()],
    prismOperations: fallbackOperations.map((op) => op.operationId),
    exampleOrderPath:
      orderNumbers[0] === undefined ? '' : api.pathOf(api.orderInfo.operationId, { [api.order.numberParam]: orderNumbers[0] }),
    resources: [...byResource.keys()],
    async close() {
      await store.close();
    },
  };
}

export type { JsonObject };
