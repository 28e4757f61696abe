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
import { operationsModel, type OperationModel, type OperationsModel, type ResourceModel } from '../contract/operations-model.js';
import type { SecurityScheme } from '../contract/security.js';
import { fixtureResource, loadFixtures, type FixtureSet } from '../contract/fixtures.js';
import { CONTRACT_JSON_PATH } from '../contract/paths.js';
import { compileContract } from '../contract/schemas.js';
import { ADMIN_PREFIX, adminAllowed, handleAdmin, type AdminContext } from './admin.js';
import { AnswerBudget } from './answer-budget.js';
import { authPolicy, checkSecurity } from './auth.js';
import { readBody } from './body.js';
import { requestValidator } from '../judgments/request.js';
import { BodyBudget, type BodyHold } from './body-budget.js';
import type { MockConfig } from './config.js';
import { controlPolicy, RESET_HEADER } from './control-guard.js';
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
import { pipelineHandler, type Stage } from './pipeline.js';
import { printable } from '../util/printable.js';
import { sendBody, sendEmpty } from './respond.js';
import { allowHeader, createRouter, routeRequest } from './router.js';
import { isSessionName, SESSION_ANSWER_HEADER, SESSION_HEADER, sessionName } from './state.js';
import { openStore } from './store/index.js';
import { counterSlots } from './store/plan.js';
import { createSteps, orderInfoSteps, type CreateBudgets, type OperationSteps } from './steps.js';
import { paramReader } from './params.js';
import type { RecordModel } from './record-model.js';
import { actionSteps, deleteSteps, listSteps, readSteps, updateSteps } from './record-steps.js';
import { DEFAULT_SESSION, type StoredResource } from './store/types.js';
import { answered, controlStage, framingStage, targetStage, type TargetedExchange } from './stages.js';
import { parseTarget } from './target.js';
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
  /**
   * A read to try (the banner's example): the first fixture order, else a list or read answering without
   * a record key; with the scheme of its first alternative. Absent in proxy mode or when there is none.
   */
  exampleRead?: ExampleRead;
  /** The resources whose records `/__mock/<resource>` lists (one per create operation). */
  resources: string[];
}

/** What the mock's stages learn about a request, stage by stage. */
interface MockExchange extends TargetedExchange {
  served: Served | undefined;
  params: Record<string, string>;
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
    served: undefined,
    params: {},
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

/** An operation as the mock serves it: its steps (validate, handle), its security, its preferred answers. */
interface Served {
  operation: OperationSpec;
  model: OperationModel;
  steps: OperationSteps;
  /** It records, changes or deletes (a fault says "nothing recorded"). */
  writes: boolean;
}

/** The session a request names, or the default one (for an operation that does not read it). */
function sessionOrDefault(req: IncomingMessage): string {
  try {
    return sessionName(req.headers[SESSION_HEADER]);
  } catch {
    return DEFAULT_SESSION;
  }
}

/** An operation without a stateful handler: Prism answers it from the contract's examples (after the mock's security). */
function prismSteps(prism: Fallback, operation: OperationSpec, bodyLimitBytes: number, budgets: CreateBudgets): OperationSteps<unknown> {
  return {
    validate(req, _params, res) {
      if (!operation.requestBody) return undefined;
      let held: BodyHold | undefined;
      return readBody(req, bodyLimitBytes, () => (held = budgets.bodies.admit(req, res))).then((bytes) => {
        held?.release();
        return bytes;
      });
    },
    handle(input, res) {
      const req = res.req;
      const target = parseTarget(req.url ?? '/');
      const url = new URL(`${target.pathname}${target.search}`, 'http://mock.invalid');
      let body: unknown;
      if (Buffer.isBuffer(input)) {
        const text = input.toString('utf8');
        try {
          body = (req.headers['content-type'] ?? '').includes('json') && text !== '' ? (JSON.parse(text) as unknown) : text;
        } catch {
          body = text;
        }
      }
      return prism({ method: req.method ?? 'GET', path: url.pathname, query: queryOf(url), headers: flatHeaders(req), body }).then(
        (answer) => {
          // Prism's answer is made for this request: a large one counts against the answer budget until it is sent.
          const session = sessionOrDefault(req);
          budgets.answers
            .take(session, Buffer.byteLength(answer.body), () => `The answer of ${operation.operationId} in session "${session}"`)
            .until(res);
          sendBody(res, answer.status, undefined, answer.body, answer.headers);
        },
      );
    },
  };
}

/** What the mock holds of a resource it records: its record model (from its first create) and how the store keys it. */
interface Recorded {
  resource: ResourceModel;
  model: RecordModel;
  stored: StoredResource;
}

/** The fixture lots for `/__mock/lots`: id, number and order, read through the model's lot members. */
function lotListing(api: OperationsModel, fixtures: FixtureSet): AdminContext['lots'] {
  const links = api.order;
  if (links === undefined) return [];
  return [...fixtures.lots].flatMap(([id, { lot, orderNumber }]) => {
    const lotNumber = lot[links.lotNumberMember];
    return typeof lotNumber === 'string' ? [{ id, lotNumber, orderNumber }] : [];
  });
}

export async function createMockApp(config: MockConfig): Promise<MockApp> {
  const log = config.log;
  const doc = readContract(config.contractPath ?? CONTRACT_JSON_PATH);
  const compiled = compileContract(doc, 'strict');
  const operations = listOperations(compiled.document);
  const router = createRouter(operations);
  // The operations model says what each operation does (`contract/resources.ts`); every operation with a
  // resource role has a stateful handler, the rest is answered by Prism.
  const api = operationsModel(compiled.document);
  const fixtures: FixtureSet =
    fixtureResource(api) !== undefined
      ? loadFixtures(config.fixturesDir, compiled, api)
      : { orders: new Map(), lots: new Map(), files: [] };
  const bodies = orderBodies(fixtures);
  const orderNumbers = [...fixtures.orders.keys()];
  const lotResource = api.order?.lotResource;

  const recorded = new Map<string, Recorded>();
  const creates = new Map<string, CreateOperation>();
  for (const createModel of api.creates) {
    const resource = api.resourceOf(createModel.operationId);
    const op = createOperation(compiled, createModel, resource, lotResource);
    creates.set(createModel.operationId, op);
    if (!recorded.has(resource.name))
      recorded.set(resource.name, {
        resource,
        model: op.model,
        stored: { slots: counterSlots(resource.name, op.model), key: resource.key, assigned: resource.keyAssigned },
      });
  }

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
    resources: new Map([...recorded].map(([name, r]) => [name, r.stored])),
    // Stored records written under another contract version are checked before any is served.
    check: recordCheck([...creates.values()].map((op) => op.record)),
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
  const resources = [...recorded.keys()];
  const adminContext: AdminContext = {
    store,
    orderNumbers,
    lots: lotListing(api, fixtures),
    resources,
    model: Buffer.from(JSON.stringify(modelView(api, ADMIN_PREFIX, resources))),
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

  // The steps of every operation: validate input, then handle (the real answer); Prism for the operations without a resource role.
  const served = new Map<OperationSpec, Served>();
  const preferred = new Map<OperationSpec, Map<string, PreferredAnswer>>();
  const fallbackOperations: OperationSpec[] = [];
  let prism: Fallback | undefined;
  const search = (req: IncomingMessage): string => {
    const url = req.url ?? '';
    const at = url.indexOf('?');
    return at < 0 ? '' : url.slice(at);
  };
  for (const operation of operations) {
    preferred.set(operation, preferredAnswers(operation));
    const model = api.get(operation.operationId);
    const record = model.resource !== undefined ? recorded.get(model.resource) : undefined;
    const ctx =
      record !== undefined
        ? { store, resource: record.resource, op: model, params: paramReader(compiled, operation, model), search, budgets }
        : undefined;
    const change = (withBody: boolean) => {
      const validateRequest = withBody ? requestValidator(compiled, model) : undefined;
      return ctx !== undefined && record !== undefined
        ? {
            ...ctx,
            model: record.model,
            ...(validateRequest !== undefined ? { validateRequest } : {}),
            validateRecord: compiled.validator({ $ref: `#/components/schemas/${record.resource.schema}` }),
            lots: fixtures.lots,
            bodyLimitBytes: config.bodyLimitBytes,
          }
        : undefined;
    };
    let steps: OperationSteps | undefined;
    const createOp = creates.get(operation.operationId);
    if (model.role === 'fixture-read') steps = orderInfoSteps(bodies, model.keyParam ?? operation.pathParams[0] ?? '');
    else if (createOp) steps = createSteps(createContext, createOp, config.bodyLimitBytes, budgets);
    else if (model.role === 'read' && ctx) steps = readSteps(ctx);
    else if (model.role === 'delete' && ctx) steps = deleteSteps(ctx);
    else if (model.role === 'list' && ctx) {
      const list = record?.resource.lists.find((l) => l.operationId === model.operationId);
      if (list) steps = listSteps(ctx, list);
    } else if (model.role === 'update') {
      const kind = record?.resource.updates.find((u) => u.operationId === model.operationId)?.kind ?? 'merge';
      const changeCtx = change(true);
      if (changeCtx) steps = updateSteps(changeCtx, kind);
    } else if (model.role === 'action') {
      const changeCtx = change(model.requestRef !== undefined);
      if (changeCtx) steps = actionSteps(changeCtx);
    }
    if (steps === undefined) {
      if (prism === undefined) {
        // Prism is an optional peer dependency (util/peer.ts): only a contract with such operations needs it.
        requirePeers([PRISM_PACKAGE], `the mock answers ${operation.operationId} (an operation without a resource role) with Prism, so it`);
        prism = await createPrismFallback(compiled.document);
      }
      steps = prismSteps(prism, operation, config.bodyLimitBytes, budgets);
      fallbackOperations.push(operation);
    }
    served.set(operation, { operation, model, steps, writes: ['create', 'update', 'delete', 'action'].includes(model.role) });
  }
  // Faults act in the answer stage, so on every operation.
  faultAdmin.operations = operations.map((operation) => operation.operationId);

  const fromModel = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the pipeline reached its ${what} stage without it`);
    return value;
  };
  /** The stages of the mock (see the module comment); each throws the problem it stands for. */
  const stages: Stage<MockExchange>[] = [
    framingStage(),
    targetStage(hosts),
    controlStage(control, (req, res, pathname) =>
      req.method === 'OPTIONS'
        ? answerOptions(req, res, adminAllowed(adminContext, pathname), pathname, [RESET_HEADER])
        : handleAdmin(adminContext, req, res, pathname),
    ),
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
        x.served = fromModel(served.get(route.operation), `handler of ${route.operation.operationId}`);
        x.params = route.params;
        return undefined;
      },
    },
    {
      // Every operation's own security, as the contract states it (Prism's operations too: it answers only after this).
      name: 'security',
      run(x) {
        checkSecurity(fromModel(x.served, 'route').model.security, x.req, x.target?.search ?? '', auth);
        return undefined;
      },
    },
    {
      name: 'validate',
      run(x) {
        const validated = fromModel(x.served, 'route').steps.validate(x.req, x.params, x.res);
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
        const operation = fromModel(x.served, 'route').operation;
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
        const route = fromModel(x.served, 'route');
        const preference = fromModel(x.preference, 'prefer');
        const answer = () => answerWith(x.res, route.steps, x.input, preference);
        const injection = x.injection;
        const pending = injection === undefined ? answer() : inject(faultStage, injection, x.req, x.res, route.writes, answer);
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
    ...exampleReadOf(api, orderNumbers),
    resources,
    async close() {
      await store.close();
    },
  };
}

export type { JsonObject };

/** A GET a user can try at once, and the scheme of the credential it needs (none: public). */
export interface ExampleRead {
  path: string;
  scheme?: SecurityScheme;
}

function exampleReadOf(api: OperationsModel, orderNumbers: readonly string[]): { exampleRead?: ExampleRead } {
  const first = (op: OperationModel): SecurityScheme | undefined => (op.security.secured ? op.security.alternatives[0]?.[0] : undefined);
  const withScheme = (path: string, op: OperationModel): { exampleRead: ExampleRead } => {
    const scheme = first(op);
    return { exampleRead: { path, ...(scheme !== undefined ? { scheme } : {}) } };
  };
  const [number] = orderNumbers;
  if (number !== undefined && api.orderInfo !== undefined && api.order !== undefined)
    return withScheme(api.pathOf(api.orderInfo.operationId, { [api.order.numberParam]: number }), api.orderInfo);
  const list = api.operations.find((op) => op.role === 'list' && !op.params.some((p) => p.in === 'path'));
  return list !== undefined ? withScheme(api.pathOf(list.operationId), list) : {};
}
