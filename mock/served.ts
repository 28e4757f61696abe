/**
 * What the mock serves, built once at start-up from the contract and the operations model: each
 * resource it records (its record model, how the store keys it), and each operation as the route stage
 * hands it on (`Served`: its steps, validate and handle; its preferred answers; whether it writes).
 * An operation with a resource role has a stateful handler; any other is answered by Prism
 * (`prism-fallback.ts`, an optional peer dependency loaded only then).
 */
import type { IncomingMessage } from 'node:http';
import type { OperationSpec } from '../contract/document.js';
import type { FixtureSet } from '../contract/fixtures.js';
import type { OperationModel, OperationsModel, ResourceModel } from '../contract/operations-model.js';
import type { CompiledContract } from '../contract/schemas.js';
import { requestValidator } from '../judgments/request.js';
import { requirePeers } from '../util/peer.js';
import type { BodyHold } from './body-budget.js';
import { readBody } from './body.js';
import { createOperation, type CreateContext, type CreateOperation } from './handlers.js';
import { paramReader } from './params.js';
import { preferredAnswers, type PreferredAnswer } from './prefer.js';
import { createPrismFallback, flatHeaders, PRISM_PACKAGE, queryOf, type Fallback } from './prism-fallback.js';
import type { RecordModel } from './record-model.js';
import { actionSteps, deleteSteps, listSteps, readSteps, updateSteps } from './record-steps.js';
import { sendBody } from './respond.js';
import { SESSION_HEADER, sessionName } from './state.js';
import { counterSlots } from './store/plan.js';
import { DEFAULT_SESSION, type Store, type StoredResource } from './store/types.js';
import { createSteps, orderInfoSteps, type CreateBudgets, type OperationSteps } from './steps.js';
import { parseTarget } from './target.js';

/** An operation as the mock serves it: its steps (validate, handle), its security, its preferred answers. */
export interface Served {
  operation: OperationSpec;
  /** The operation's method and path template (what the router matches). */
  method: OperationSpec['method'];
  path: string;
  model: OperationModel;
  steps: OperationSteps;
  /** The answers `Prefer: code=` may ask for, by status. */
  preferred: Map<string, PreferredAnswer>;
  /** It records, changes or deletes (a fault says "nothing recorded"). */
  writes: boolean;
}

/** What the mock holds of a resource it records: its record model (from its first create) and how the store keys it. */
export interface Recorded {
  resource: ResourceModel;
  model: RecordModel;
  stored: StoredResource;
}

/** The resources the creates record (by name), and each create as the mock makes it (by operationId). */
export function recordedResources(
  compiled: CompiledContract,
  api: OperationsModel,
): { recorded: Map<string, Recorded>; creates: Map<string, CreateOperation> } {
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
  return { recorded, creates };
}

export interface ServedDeps {
  compiled: CompiledContract;
  api: OperationsModel;
  operations: readonly OperationSpec[];
  recorded: ReadonlyMap<string, Recorded>;
  creates: ReadonlyMap<string, CreateOperation>;
  store: Store;
  lots: FixtureSet['lots'];
  /** The fixture orders' answers, by number. */
  orderBodies: Map<string, Buffer>;
  createContext: CreateContext;
  bodyLimitBytes: number;
  budgets: CreateBudgets;
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

/** The query of a request's target (`?...`), or ''. */
function searchOf(req: IncomingMessage): string {
  const url = req.url ?? '';
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at);
}

/** Every operation as the mock serves it, and the ids of those Prism answers. */
export async function servedOperations(deps: ServedDeps): Promise<{ served: Served[]; prismOperations: string[] }> {
  const { compiled, api, store, budgets, bodyLimitBytes } = deps;
  const served: Served[] = [];
  const prismOperations: string[] = [];
  let prism: Fallback | undefined;
  for (const operation of deps.operations) {
    const preferred = preferredAnswers(operation);
    const model = api.get(operation.operationId);
    const record = model.resource !== undefined ? deps.recorded.get(model.resource) : undefined;
    const ctx =
      record !== undefined
        ? { store, resource: record.resource, op: model, params: paramReader(compiled, operation, model), search: searchOf, budgets }
        : undefined;
    const change = (withBody: boolean) => {
      const validateRequest = withBody ? requestValidator(compiled, model) : undefined;
      return ctx !== undefined && record !== undefined
        ? {
            ...ctx,
            model: record.model,
            ...(validateRequest !== undefined ? { validateRequest } : {}),
            validateRecord: compiled.validator({ $ref: `#/components/schemas/${record.resource.schema}` }),
            lots: deps.lots,
            bodyLimitBytes,
          }
        : undefined;
    };
    let steps: OperationSteps | undefined;
    const createOp = deps.creates.get(operation.operationId);
    if (model.role === 'fixture-read') steps = orderInfoSteps(deps.orderBodies, model.keyParam ?? operation.pathParams[0] ?? '');
    else if (createOp) steps = createSteps(deps.createContext, createOp, bodyLimitBytes, budgets);
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
      steps = prismSteps(prism, operation, bodyLimitBytes, budgets);
      prismOperations.push(operation.operationId);
    }
    served.push({
      operation,
      method: operation.method,
      path: operation.path,
      model,
      steps,
      preferred,
      writes: ['create', 'update', 'delete', 'action'].includes(model.role),
    });
  }
  return { served, prismOperations };
}
