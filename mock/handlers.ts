/**
 * The stateful handlers: order information from the fixtures, and the creates that record what they
 * answer. The rules of the created records come from the contract (see `record-model.ts`).
 */
import { isObject, type JsonObject } from '../contract/document.js';
import type { FixtureSet } from '../contract/fixtures.js';
import type { OperationModel, ResourceModel } from '../contract/operations-model.js';
import type { CompiledContract, FieldError, Validator } from '../contract/schemas.js';
import { requestValidator } from '../judgments/request.js';
import { isoNow } from './clock.js';
import { problem } from './problems.js';
import type { RecordRules } from './record-check.js';
import { recordModel, type RecordModel } from './record-model.js';
import { recordPlanner, type RecordPlanner } from './store/plan.js';
import type { Store } from './store/types.js';

/** Serialized order-info answers, computed once: order number → body. */
export function orderBodies(fixtures: FixtureSet): Map<string, Buffer> {
  const bodies = new Map<string, Buffer>();
  for (const [number, order] of fixtures.orders) bodies.set(number, Buffer.from(JSON.stringify(order)));
  return bodies;
}

export function orderInfo(bodies: Map<string, Buffer>, number: string): Buffer {
  const body = bodies.get(number);
  if (body) return body;
  throw problem(
    'orderNotFound',
    `No order has the number ${JSON.stringify(number.slice(0, 200))}; GET /__mock/orders lists the known ones.`,
  );
}

export interface CreateContext {
  store: Store;
  lots: FixtureSet['lots'];
  /** The mock's log (a create recorded whose answer could not be sent is logged, `--quiet` or not). */
  log: (line: string) => void;
}

export interface CreateOperation {
  resource: string;
  /** The contract's success status of the create (`201`). */
  status: number;
  model: RecordModel;
  /** Plans a record from a checked body (`recordPlanner` of the resource and model). */
  plan: RecordPlanner;
  /** The validator of the request body (`requestValidator`; readOnly members, when sent, are typed like in the answer). */
  validate: Validator;
  /** What a stored record of the resource must be (its success schema, members and key): replay checks it. */
  record: RecordRules;
}

/**
 * A create of the operations model made ready to serve: its resource, success status, record rules,
 * planner and request validator (the mock's app and the tests build it here, in one way).
 */
export function createOperation(
  compiled: CompiledContract,
  createModel: OperationModel,
  resource: Pick<ResourceModel, 'name' | 'key' | 'keyAssigned'>,
  lotResource: string | undefined,
): CreateOperation {
  const validate = requestValidator(compiled, createModel);
  if (validate === undefined || createModel.successSchema === undefined)
    throw new Error(`${createModel.operationId}: the contract has no JSON request body or ${createModel.successStatus} answer`);
  const model = recordModel(createModel, lotResource);
  return {
    resource: resource.name,
    status: createModel.successStatus,
    model,
    plan: recordPlanner(resource.name, model, resource.keyAssigned ? undefined : resource.key),
    validate,
    record: {
      resource: resource.name,
      schemaName: createModel.successSchema,
      validate: compiled.validator({ $ref: `#/components/schemas/${createModel.successSchema}` }),
      members: model.fields.map((field) => field.name),
      keyMember: model.fields.find((field) => field.rule.kind === 'id')?.name,
    },
  };
}

/** The body as a JSON object, or the 400 saying what it is. */
export function objectBody(body: unknown): JsonObject {
  if (isObject(body)) return body;
  const kind = Array.isArray(body) ? 'an array' : body === null ? 'null' : `a ${typeof body}`;
  throw problem('invalidBody', `The request body must be a JSON object, not ${kind}.`, [{ pointer: '', detail: 'must be of type object' }]);
}

/** Throws the 400 of a body's schema problems (all of them; the first five in the detail). */
export function refuseProblems(errors: readonly FieldError[], what = 'request body'): void {
  if (errors.length === 0) return;
  const shown = 5;
  const summary = errors
    .slice(0, shown)
    .map((e) => `${e.pointer || '(body)'} ${e.detail}`)
    .join('; ');
  const more = errors.length > shown ? `; and ${errors.length - shown} more (every one is in "errors")` : '';
  throw problem('invalidBody', `The ${what} has ${errors.length} problem${errors.length === 1 ? '' : 's'}: ${summary}${more}.`, [
    ...errors,
  ]);
}

/** The lot a body names (`lotMember`), or the 422 saying it names none the fixtures have. */
export function knownLot(input: JsonObject, lotMember: string, lots: FixtureSet['lots']): JsonObject {
  const lotId = input[lotMember];
  const found = typeof lotId === 'number' ? lots.get(lotId) : undefined;
  if (found !== undefined) return found.lot;
  const shown = JSON.stringify(lotId ?? null).slice(0, 40);
  throw problem('unknownLot', `No lot has the id ${shown}; GET /__mock/lots lists the known lots.`, [
    { pointer: `/${lotMember}`, detail: `no lot has the id ${shown}` },
  ]);
}

/** Validates a create body: a JSON object, readOnly members dropped, no schema violation, a known lot (when the create names one). */
export function checkCreateBody(op: CreateOperation, body: unknown, lots: FixtureSet['lots']): JsonObject {
  // Server-assigned (readOnly) members a client sends must still have their type (the request and
  // the answer share one shape), and are then ignored: validated first, dropped after.
  const input = objectBody(body);
  refuseProblems(op.validate(input));
  // The body is a fresh object from JSON.parse (its members are own data properties, `__proto__`
  // included), so the server-assigned members can be dropped from it in place.
  for (const name of op.model.readOnly) if (Object.hasOwn(input, name)) delete input[name];
  if (op.model.lotMember !== undefined) knownLot(input, op.model.lotMember, lots);
  return input;
}

/** Runs a create of a checked body (`checkCreateBody`): the store allocates the ids and records it in one step. Answers the JSON (at once when the store does). */
export function create(ctx: CreateContext, op: CreateOperation, sessionName: string, input: JsonObject): string | Promise<string> {
  const lotMember = op.model.lotMember;
  const lotId = lotMember !== undefined ? input[lotMember] : undefined;
  const lot = typeof lotId === 'number' ? ctx.lots.get(lotId)?.lot : undefined;
  return ctx.store.create(sessionName, op.plan(input, lot, isoNow()));
}
