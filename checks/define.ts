/**
 * The shape of a check module: ONE file holds a check's cases (what the suite sends), its judge (the
 * pure judgment of each answer, from `judgments/`), its rule text, what the validating proxy applies
 * to traffic it only observes, and the faults of the reference server that make it fail. The one
 * list of modules (`checks/index.ts`) is read by the suite (`conformance/checks/index.ts`), the proxy
 * (`mock/proxy/judgments.ts`) and the self-test (`conformance/self-test/faults.ts`, whose reference
 * server also serves the fault behaviours a module declares).
 *
 * This folder sits below both the suite and the proxy, so it declares the narrow shape of the runner a
 * check's cases use (`SuiteContext`, `SuiteCases`): the suite's `CheckContext` and `Cases` have it.
 */
import type { JsonObject } from '../contract/document.js';
import type { Level } from '../contract/levels.js';
import type { OperationId, OperationsModel, ParamModel, ResourceModel } from '../contract/operations-model.js';
import type { CompiledContract } from '../contract/schemas.js';
import type { JudgeContext, JudgedAnswer, JudgedExchange, Violation } from '../judgments/exchange.js';
import type { RecordSequence } from '../judgments/records.js';
import type { CredentialParts } from './credentials.js';
import type { CheckData, CorpusBody, Derivation, DiscoveredLot } from './data.js';

/**
 * What a list of checks is built from: a contract's operations model, its schemas compiled at both
 * levels, and the suite's data generator (the cases of the creates; the suite hands it, so this folder
 * never loads it).
 */
export interface CheckSource {
  model: OperationsModel;
  contracts: Record<Level, CompiledContract>;
  data: CheckData;
}

// ---- the suite: what a check's cases send and how each answer is judged ------------------------------

/** A request a case sends (the path below the base URL, already URL-encoded). */
export interface SuiteRequest {
  /** The operation it addresses, `server` for none. */
  operation: OperationId;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** How `SuiteContext.request` builds a request to an operation. */
export interface SuiteRequestOptions {
  params?: Record<string, string>;
  query?: [string, string][];
  body?: JsonObject;
  write?: boolean;
}

/** An exchange as the suite records it: what a judgment reads, and why a body did not decode. */
export interface SuiteExchange extends JudgedExchange {
  answer?: JudgedAnswer & { undecodable?: string };
}

/** The runner as a check's cases see it (the suite's `CheckContext` has this shape). */
export interface SuiteContext<X extends SuiteExchange> {
  readonly model: OperationsModel;
  /** The run's level, the operations model and both compiled levels. */
  readonly judge: JudgeContext;
  readonly config: {
    readonly orderNumber: string;
    readonly unknownOrderNumber: string;
    readonly runMarker: string;
    /** `--token`, `--rejected-token`, and the values of `--credential NAME=VALUE` by scheme. */
    readonly token: string;
    readonly rejectedToken: string;
    readonly credentials: Readonly<Record<string, string>>;
    /** Seed of the generated request bodies. */
    readonly seed: number;
  };
  /** Every exchange of the run so far, in the order sent. */
  readonly http: { readonly history: readonly X[] };
  /** Sends a request as it is. */
  send(request: SuiteRequest): Promise<X>;
  /** The operation's path, its parameter (the order number) URL-encoded. */
  path(op: OperationId, number?: string): string;
  /** The bearer header of the configured token. */
  bearer(): Record<string, string>;
  /** The credentials of an operation, as its security states: headers, and query parameters (an API key in the query). */
  credentialsOf(op: OperationId): { headers: Record<string, string>; query: readonly (readonly [string, string])[] };
  /** Runs `make` once per key in a run; later callers get the same result. */
  memo<T>(key: string, make: () => Promise<T>): Promise<T>;
  /** The GET of an order number (or of an already encoded `path`), with the operation's credentials unless `headers` are given. */
  getOrder(number: string, headers?: Record<string, string>, path?: string): Promise<X>;
  /** The first GET of `--order-number` (shared by every check that reads it). */
  orderExchange(): Promise<X>;
  /** A request to any operation with its credentials: path parameters filled in (URL-encoded), query parameters appended, a JSON body; `write`: skipped with --read-only. */
  request(op: OperationId, options: SuiteRequestOptions): Promise<X>;
  /** A body of the operation's request schema: its required members, the lot-naming one naming the first lot of the run, and a `record`'s own values where the schema accepts them. */
  exampleBody(op: OperationId, record?: JsonObject): Promise<JsonObject>;
  /** The request `request` sends, with `credentials` in place of the operation's own (skipped with --read-only when it writes). */
  buildRequest(op: OperationId, options: SuiteRequestOptions & { credentials?: CredentialParts }): SuiteRequest;
  /** The request `getOrder` sends, with `headers` in place of the operation's credentials. */
  orderRequest(number: string, headers?: Record<string, string>): SuiteRequest;
  /** Sends on a kept-alive connection right after an authenticated request (as a client's next request goes). */
  afterAuthenticated(request: SuiteRequest): Promise<X>;
  /** Sends on a fresh connection (the first request of a new client). */
  fresh(request: SuiteRequest): Promise<X>;
  /** The create corpus of an operation: the bodies of every value class (fixed whatever the seed). */
  corpus(op: OperationId): Promise<readonly CorpusBody[]>;
  /** Creates the corpus record `index` of an operation, once per run (a write of the budget). */
  corpusCreate(op: OperationId, index: number): Promise<{ exchange: X }>;
  /** The lots of `--order-number`, in the order answered (the calling case is not run when there are none). */
  lots(): Promise<readonly DiscoveredLot[]>;
  /** What the cases of a create operation are derived from (its model and request schema at both levels). */
  derivation(op: OperationId): Derivation;
  /** A valid body generated from the contract (seeded by `key`), naming the first lot, carrying the run marker. */
  body(op: OperationId, key: string): Promise<JsonObject>;
  /** A create meant to make a record, counted against --max-writes as the planned extra write `extra` (`SuiteCheck.extraWrites`). */
  createRecord(op: OperationId, body: JsonObject, options: { extra: string }): Promise<X>;
  /** A planned extra create, once per key: every check asking for `key` judges the same answer. */
  extraCreate(key: string, op: OperationId, body: JsonObject, framing?: { contentType?: string; chunked?: boolean }): Promise<X>;
  /** The exchange has an answer, or the case is not run (blocked) / failed. */
  sent(exchange: X): void;
  /** Throws the violations of a judgment as one failure of the case (every violation listed). */
  verdict(exchange: X | undefined, violations: Violation[]): void;
  /** A value of a parameter its schema accepts (its default, first enum value, a seeded generated one, else a plain one of its type). */
  parameterValue(param: ParamModel): string;
  /** A valid body of a create (the first of its corpus, fixed whatever the seed, marked as the run's). */
  validBody(op: OperationId): Promise<JsonObject>;
  /**
   * A create's request with `body` (a JSON text as it is, when a string; skipped with --read-only), sent with `headers`
   * (default: its credentials), to another `path` when given, under another Content-Type (`null`: none), chunked.
   */
  sendToCreate(
    op: OperationId,
    body: JsonObject | string,
    headers?: Record<string, string>,
    framing?: { path?: string; contentType?: string | null; chunked?: boolean },
  ): Promise<X>;
  /** The stateful sequence of a resource the runner produces once per run (create, read back, list, change, act, delete), shared by every check judging it. */
  recordSequence(resource: ResourceModel): Promise<RecordSequence>;
  /** A GET the run can ask anything of (the order read, else a list); undefined when the contract has none. */
  sampleGet(headers: Record<string, string>): Promise<X> | undefined;
}

/** The cases of one run of a check: each sends (or takes a shared exchange), then judges it. */
export interface SuiteCases<X extends SuiteExchange> {
  judge(name: string, exchange: () => Promise<X>, judge: (exchange: X) => Violation[]): Promise<void>;
  /** A case of a sequence the runner produced: `judge` judges the sequence, `shown` is the exchange a failure shows. */
  judgeShown(name: string, shown: JudgedExchange, judge: () => Violation[]): Promise<void>;
  /** A case that sends and judges by itself (`SuiteContext.sent`, `verdict`); `extra`: a case on top of the documented ones (the seeded one). */
  run(name: string, fn: () => Promise<void>, options?: { extra?: boolean }): Promise<void>;
}

// ---- the proxy: the same judgments applied to traffic it only observes ---------------------------------

/** Who broke a rule: the client (its request) or the server (its answer, given the request). */
export type Side = 'client' | 'server';

/** A judgment's violation, with the level it belongs to when that differs from the observation's (a problem only the strict schema finds). */
export type Finding = Violation & { level?: Level };

/** What an observation may read of one exchange the proxy saw (built once per exchange by the proxy). */
export interface ObservedExchange {
  exchange: JudgedExchange;
  /** The judged level's context (level, operations model, both compiled levels). */
  jc: JudgeContext;
  /** The operation the request names, if any. */
  op?: OperationId;
  /** Methods allowed on the path when the path is the contract's but the method is not. */
  allow?: string[];
  /** The path parameters, decoded. */
  params: Readonly<Record<string, string>>;
  /** Whether the whole request body / answer body was kept (a longer one is forwarded but not judged). */
  requestComplete: boolean;
  answerComplete: boolean;
  /** The request body when it is a JSON object (a create's sent members). */
  sent?: JsonObject;
  /** The answer body, parsed (undefined when absent or not JSON). */
  answerBody?: unknown;
  /** The lot a create names, as far as the proxy learnt it from order-info answers (for `x-default-from`). */
  lot?: JsonObject;
  /** The ids of the client observations that found problems (filled before the server ones run). */
  clientRules: ReadonlySet<string>;
}

/**
 * One rule the proxy applies to observed traffic: when a shared judgment applies to an exchange nobody
 * generated (which operation, which credentials the client presented, what it sent). `client`: the
 * request broke the contract; `server`: the answer did. `spec` ones hold at both levels, `strict` ones only at `strict`.
 */
export interface Observation {
  id: string;
  level: Level;
  side: Side;
  /** The rule, as the suite states it (`judgments/rules.ts`). */
  rule: string;
  judge(input: ObservedExchange): Finding[];
}

// ---- the self-test: the faults that make a check fail ----------------------------------------------------

/** One run of the self-test's fault table: these faults of the reference server make the check fail (and `alsoFails`, which they cannot help breaking too). */
export interface FaultPlan {
  faults: readonly string[];
  alsoFails?: readonly string[];
}

/** A request as a fault override sees it. */
export interface FaultRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  /** Lower-case names. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** An answer of the reference server before it is sent (and compressed when asked). */
export interface FaultAnswer {
  status: number;
  headers: Readonly<Record<string, string | number>>;
  body: string;
}

/** A fault behaviour declared by a module: the answer the faulty server gives in place of the correct server's. */
export type FaultOverride = (request: FaultRequest, answer: FaultAnswer) => FaultAnswer;

// ---- the module ------------------------------------------------------------------------------------------

/** One check of the suite, as the suite registers it (`conformance/checks/types.ts`'s `Check` reads these members). */
export interface SuiteCheck {
  /** Unique, stable: `<operation>.<name>`. */
  id: string;
  level: Level;
  /** The operations it exercises (`server` for none in particular). */
  operations: OperationId[];
  title: string;
  rule: string;
  /** Sends requests that change state (skipped with --read-only). */
  write?: boolean;
  /** The documented cases it sends: the partition classes of the rule's inputs. */
  cases: readonly string[];
  /** The budget keys of the records it creates beyond its operation's corpus, planned before any write is sent (known when listed, or from the run: its lots, its corpus). */
  extraWrites?: readonly string[] | (<X extends SuiteExchange>(ctx: SuiteContext<X>) => Promise<readonly string[]>);
  /** Sends what must reach the server before any check of the run starts (a failure is kept for the check to report). */
  prepare?<X extends SuiteExchange>(ctx: SuiteContext<X>): Promise<void>;
  run<X extends SuiteExchange>(ctx: SuiteContext<X>, t: SuiteCases<X>): Promise<void>;
}

/** What a developer writes for a check (`defineCheck`): one operation at a time, or the whole server. */
export interface CheckDefinition {
  /** The check's name: its id is `<operation>.<name>` for each operation of `operations`, or `server.<name>`. */
  name: string;
  level: Level;
  /** The rule it enforces, quoted from `judgments/rules.ts`. */
  rule: string;
  title: string | ((op: OperationId) => string);
  /** The operations it checks, one check each (from the operations model); absent: one check of the whole server. */
  operations?(model: OperationsModel): OperationId[];
  /** Sends requests that change state (skipped with --read-only): always, or for some operations. */
  write?: boolean | ((op: OperationId, model: OperationsModel) => boolean);
  /** The documented cases (partition classes) it sends, by name. */
  cases(source: CheckSource, op: OperationId): readonly string[];
  /** Sends its cases through `t`, each judged by a pure judgment (`judgments/`). */
  run<X extends SuiteExchange>(ctx: SuiteContext<X>, t: SuiteCases<X>, op: OperationId): Promise<void>;
  /**
   * The faults of the reference server that make it fail: at least one for a check the bundled contract
   * has (`test/check-registry.test.ts`); a check only other contracts have may rely on the faults the
   * self-test derives from their schemas (`conformance/self-test/overrides.ts`).
   */
  faults(op: OperationId, model: OperationsModel): readonly FaultPlan[];
  /** Fault behaviours this module declares, by fault name: the reference server serves them (no edit of the server needed). */
  overrides?: Readonly<Record<string, FaultOverride>>;
  /** What the validating proxy applies of it to traffic it observes (absent: a rule the proxy cannot judge from one exchange it saw). */
  observe?: readonly Observation[];
}

/** An entry of the one list: a check of the suite with its faults, and/or a rule the proxy observes. */
export interface CheckModule {
  /** The checks it adds to the suite for a contract. */
  suite(source: CheckSource): SuiteCheck[];
  /** The fault cases of the self-test's table, for a contract. */
  faultCases(source: CheckSource): FaultCase[];
  overrides: Readonly<Record<string, FaultOverride>>;
  observe: readonly Observation[];
}

/** One row of the self-test's fault table: the check the faults make fail. */
export interface FaultCase {
  check: string;
  faults: string[];
  alsoFails?: string[];
}

/** The server as an operation group (the checks of the whole server). */
const SERVER = 'server';

/** A check module from its definition. */
export function defineCheck(definition: CheckDefinition): CheckModule {
  const ops = (source: CheckSource): OperationId[] => definition.operations?.(source.model) ?? [SERVER];
  const idOf = (op: OperationId): string => `${op}.${definition.name}`;
  return {
    suite: (source) =>
      ops(source).map((op) => ({
        id: idOf(op),
        level: definition.level,
        operations: [op],
        title: typeof definition.title === 'string' ? definition.title : definition.title(op),
        rule: definition.rule,
        ...((typeof definition.write === 'function' ? definition.write(op, source.model) : definition.write === true)
          ? { write: true }
          : {}),
        cases: definition.cases(source, op),
        run: (ctx, t) => definition.run(ctx, t, op),
      })),
    faultCases: (source) =>
      ops(source).flatMap((op) =>
        definition.faults(op, source.model).map((plan) => ({
          check: idOf(op),
          faults: [...plan.faults],
          ...(plan.alsoFails !== undefined ? { alsoFails: [...plan.alsoFails] } : {}),
        })),
      ),
    overrides: definition.overrides ?? {},
    observe: definition.observe ?? [],
  };
}

/** A module with only what the proxy applies: a rule of a client's request, or the observations of a module's checks that stand apart in the list (the proxy's order of rules). */
export function defineObservation(...observations: Observation[]): CheckModule {
  return { suite: () => [], faultCases: () => [], overrides: {}, observe: observations };
}
