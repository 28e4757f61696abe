/**
 * The mock's wiring: built once from the contract at start-up (what it serves: `served.ts`; its
 * state: `store/`), then its declared list of stages (`stages/`, one module each, run by `pipeline.ts`):
 * framing → target and Host → control paths (`/__mock`) or CORS → session echo → route → security →
 * validate input → prefer, injected faults and latency → answer (a stateful handler, or Prism for an
 * operation without one). A stage takes the exchange's phase it needs (`stages/mock-exchange.ts`),
 * so the list compiles only in an order that gives it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listOperations, readContract, type JsonObject } from '../contract/document.js';
import { operationsModel, type OperationModel, type OperationsModel } from '../contract/operations-model.js';
import type { SecurityScheme } from '../contract/security.js';
import { fixtureResource, loadFixtures, type FixtureSet } from '../contract/fixtures.js';
import { CONTRACT_JSON_PATH } from '../contract/paths.js';
import { compileContract, type CompiledContract } from '../contract/schemas.js';
import { ADMIN_PREFIX, adminAllowed, handleAdmin, type AdminContext } from './admin.js';
import { AnswerBudget } from './answer-budget.js';
import { authPolicy } from './auth.js';
import { BodyBudget } from './body-budget.js';
import type { MockConfig } from './config.js';
import { controlPolicy, RESET_HEADER } from './control-guard.js';
import { orderBodies, type CreateContext, type CreateOperation } from './handlers.js';
import { hostPolicy } from './host.js';
import { FaultRules, type FaultRuleStore } from './fault-rules.js';
import { recordCheck, recordStamp } from './record-check.js';
import { modelView } from './model-view.js';
import { pipelineHandler, stageList } from './pipeline.js';
import { createRouter } from './router.js';
import { recordedResources, servedOperations, type Recorded } from './served.js';
import { openStore, type StoreConfig } from './store/index.js';
import type { CreateBudgets } from './steps.js';
import { answerStage } from './stages/answer.js';
import { controlStage, type ControlAnswer } from './stages/control.js';
import { answerOptions, corsStage } from './stages/cors.js';
import { framingStage } from './stages/framing.js';
import { mockExchange, type MockExchange } from './stages/mock-exchange.js';
import { preferStage } from './stages/prefer.js';
import { routeStage } from './stages/route.js';
import { securityStage } from './stages/security.js';
import { sessionEchoStage } from './stages/session.js';
import { targetStage } from './stages/target.js';
import { validateStage } from './stages/validate.js';
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

export interface MockApp extends ServedContent {
  handle(req: IncomingMessage, res: ServerResponse): void;
  close(): Promise<void>;
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

/** The store's configuration: the mock's options, each recorded resource's keys, the check of stored records. */
function storeConfig(
  config: MockConfig,
  compiled: CompiledContract,
  recorded: ReadonlyMap<string, Recorded>,
  creates: ReadonlyMap<string, CreateOperation>,
): StoreConfig {
  return {
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
    log: config.log,
  };
}

export async function createMockApp(config: MockConfig): Promise<MockApp> {
  const log = config.log;
  const doc = readContract(config.contractPath ?? CONTRACT_JSON_PATH);
  const compiled = compileContract(doc, 'strict');
  const operations = listOperations(compiled.document);
  // The operations model says what each operation does (`contract/resources.ts`).
  const api = operationsModel(compiled.document);
  const fixtures: FixtureSet =
    fixtureResource(api) !== undefined
      ? loadFixtures(config.fixturesDir, compiled, api)
      : { orders: new Map(), lots: new Map(), files: [] };
  const orderNumbers = [...fixtures.orders.keys()];
  const { recorded, creates } = recordedResources(compiled, api);

  // The state's one owner: memory, the journal (--state-file) or Redis (--store).
  const store = await openStore(storeConfig(config, compiled, recorded, creates));
  const budgets: CreateBudgets = {
    bodies: new BodyBudget(config.maxBodyBytesInFlight),
    answers: new AnswerBudget(config.maxAnswerBytesInFlight),
  };
  const createContext: CreateContext = { store, lots: fixtures.lots, log };
  // Session fault rules (docs/faults.md): in the shared store when there is one (every replica applies
  // them), else in this process; at most one session more than --max-sessions (the default one).
  const faultRules: FaultRuleStore = store.faultRules?.(config.maxSessions + 1) ?? new FaultRules(config.maxSessions + 1);
  await faultRules.ready;
  const resources = [...recorded.keys()];
  // Every operation as the mock serves it: validate, then handle (the real answer); Prism for those without a resource role.
  const { served, prismOperations } = await servedOperations({
    compiled,
    api,
    operations,
    recorded,
    creates,
    store,
    lots: fixtures.lots,
    orderBodies: orderBodies(fixtures),
    createContext,
    bodyLimitBytes: config.bodyLimitBytes,
    budgets,
  });
  const adminContext: AdminContext = {
    store,
    orderNumbers,
    lots: lotListing(api, fixtures),
    resources,
    model: Buffer.from(JSON.stringify(modelView(api, ADMIN_PREFIX, resources))),
    answers: budgets.answers,
    // Faults act in the answer stage, so on every operation.
    faults: { rules: faultRules, operations: operations.map((operation) => operation.operationId) },
    tokens: config.tokens.length > 0 ? 'listed' : 'any',
    log,
    ...(config.contractPath !== undefined ? { contractPath: config.contractPath } : {}),
    ...(config.adminToken !== undefined ? { adminToken: config.adminToken } : {}),
  };
  const router = createRouter(served);
  const hosts = hostPolicy(config.host, config.allowedHosts);
  const adminAnswer: ControlAnswer = (req, res, pathname) =>
    req.method === 'OPTIONS'
      ? answerOptions(req, res, adminAllowed(adminContext, pathname), pathname, [RESET_HEADER])
      : handleAdmin(adminContext, req, res, pathname);

  /** The mock's stages, in order (see the module comment); each throws the problem it stands for. */
  const stages = stageList<MockExchange>()
    .add(framingStage())
    .add(targetStage({ hosts }))
    .add(controlStage({ policy: controlPolicy(config.corsOrigins), answer: adminAnswer }))
    .add(corsStage({ cors: { origins: config.corsOrigins }, allowed: (pathname) => router.allowed(pathname) }))
    .add(sessionEchoStage())
    .add(routeStage({ router }))
    .add(securityStage({ auth: authPolicy(config.tokens, config.rejectTokens) }))
    .add(validateStage())
    .add(preferStage({ rules: faultRules, latencyMs: config.latencyMs }))
    .add(answerStage({ faults: { rules: faultRules, log, quiet: config.quiet } }));

  // The access log shows targets with the tokens the mock knows (--token, --admin-token) and credential
  // positions (`?access_token=...`) hidden: a token typed into a URL by mistake stays out of the log.
  const redactor = createRedactor([...config.tokens, ...(config.adminToken !== undefined ? [config.adminToken] : [])]);
  const handle = pipelineHandler<MockExchange>({
    stages,
    exchange: mockExchange,
    log,
    quiet: config.quiet,
    who: 'mock',
    shownTarget: (req) => redactor.redact(req.url ?? ''),
  });

  return {
    handle,
    orderNumbers,
    lotIds: [...fixtures.lots.keys()],
    prismOperations,
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
