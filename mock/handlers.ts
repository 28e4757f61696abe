/**
 * The stateful handlers: order information from the fixtures, and the creates that record what they
 * answer. The rules of the created records come from the contract (see `record-model.ts`).
 */
import { isObject, type JsonObject, type JsonValue } from '../contract/document.js';
import type { FixtureSet } from '../contract/fixtures.js';
import type { Validator } from '../contract/schemas.js';
import type { Journal } from './journal.js';
import { problem } from './problems.js';
import { formatSequence, parseSequence, type RecordModel } from './record-model.js';
import type { MockState, Session } from './state.js';

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
  state: MockState;
  journal?: Journal;
  lots: FixtureSet['lots'];
  log: (line: string) => void;
}

export interface CreateOperation {
  resource: string;
  model: RecordModel;
  /** The validator of the request body (readOnly members, when sent, are typed like in the answer). */
  validate: Validator;
}

/** The name of a per-session counter (`lot-transfers#id`). */
function counterKey(resource: string, member: string): string {
  return `${resource}#${member}`;
}

/** Raises the counters of a session past a recorded object (journal replay). */
export function raiseCounters(state: MockState, session: Session, op: CreateOperation, record: JsonObject): void {
  for (const field of op.model.fields) {
    const value = record[field.name];
    if (field.rule.kind === 'id' && typeof value === 'number') state.raise(session, counterKey(op.resource, field.name), value);
    if (field.rule.kind === 'sequence') state.raise(session, counterKey(op.resource, field.name), parseSequence(field.rule.prefix, value));
  }
}

/** Validates a create body: a JSON object, readOnly members dropped, no schema violation, a known lot. */
export function checkCreateBody(op: CreateOperation, body: unknown, lots: FixtureSet['lots']): JsonObject {
  if (!isObject(body)) {
    const kind = Array.isArray(body) ? 'an array' : body === null ? 'null' : `a ${typeof body}`;
    throw problem('invalidBody', `The request body must be a JSON object, not ${kind}.`, [
      { pointer: '', detail: 'must be of type object' },
    ]);
  }
  // Server-assigned (readOnly) members a client sends must still have their type (the request and
  // the answer share one shape), and are then ignored: validated first, dropped after.
  const input = body;
  const errors = op.validate(input);
  if (errors.length > 0) {
    const shown = 5;
    const summary = errors
      .slice(0, shown)
      .map((e) => `${e.pointer || '(body)'} ${e.detail}`)
      .join('; ');
    const more = errors.length > shown ? `; and ${errors.length - shown} more (every one is in "errors")` : '';
    throw problem(
      'invalidBody',
      `The request body has ${errors.length} problem${errors.length === 1 ? '' : 's'}: ${summary}${more}.`,
      errors,
    );
  }
  // The body is a fresh object from JSON.parse (its members are own data properties, `__proto__`
  // included), so the server-assigned members can be dropped from it in place.
  for (const name of op.model.readOnly) if (Object.hasOwn(input, name)) delete input[name];
  const lotId = input[op.model.lotMember];
  if (typeof lotId !== 'number' || !lots.has(lotId)) {
    const shown = JSON.stringify(lotId ?? null).slice(0, 40);
    throw problem('unknownLot', `No lot has the id ${shown}; GET /__mock/lots lists the known lots.`, [
      { pointer: `/${op.model.lotMember}`, detail: `no lot has the id ${shown}` },
    ]);
  }
  return input;
}

/** Builds the record to store: server-assigned members, the input, the contract's defaults. */
export function buildRecord(
  state: MockState,
  session: Session,
  op: CreateOperation,
  input: JsonObject,
  lots: FixtureSet['lots'],
  now: string,
): JsonObject {
  const lot = lots.get(input[op.model.lotMember] as number)?.lot as unknown as JsonObject | undefined;
  const record: JsonObject = {};
  for (const { name, rule } of op.model.fields) {
    let value: JsonValue | undefined;
    if (rule.kind === 'id') value = state.next(session, counterKey(op.resource, name));
    else if (rule.kind === 'timestamp') value = now;
    else if (Object.hasOwn(input, name)) value = input[name];
    else if (rule.kind === 'default')
      value = typeof rule.value === 'object' && rule.value !== null ? structuredClone(rule.value) : rule.value;
    else if (rule.kind === 'from-lot') value = lot?.[rule.member];
    else if (rule.kind === 'sequence') value = formatSequence(rule.prefix, rule.width, state.next(session, counterKey(op.resource, name)));
    if (value !== undefined) record[name] = value;
  }
  return record;
}

/** Runs a create of a checked body (`checkCreateBody`): build, journal (durably, when configured), record. Answers the JSON. */
export async function create(ctx: CreateContext, op: CreateOperation, sessionName: string, input: JsonObject): Promise<string> {
  const session = ctx.state.session(sessionName);
  const record = buildRecord(ctx.state, session, op, input, ctx.lots, new Date().toISOString());
  const json = JSON.stringify(record);
  if (ctx.journal) {
    try {
      await ctx.journal.append({ op: 'create', session: sessionName, resource: op.resource, record });
    } catch (error) {
      ctx.log(`state file write failed: ${(error as Error).message}`);
      throw problem('notDurable', 'The mock could not write its state file, so nothing was recorded; check the disk and retry.');
    }
  }
  ctx.state.add(session, op.resource, json);
  return json;
}
