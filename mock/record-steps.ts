/**
 * The steps of the operations that act on recorded records (after routing and security), one factory
 * per role of the operations model: a read (404 for a key never created or deleted), a list (the
 * records matching every equality filter, paged where the contract pages), a change (a JSON merge
 * patch or a replace, validated against its own request schema and the record's schema; a refused
 * change changes nothing), a delete (then 404), an action (`x-action`: 409 when the record is not in a
 * state it can start from). Every step reads its session (`X-Mock-Session`) and the operation's path
 * and query parameters, checked against their schemas (`params.ts`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonObject, JsonValue } from '../contract/document.js';
import type { FixtureSet } from '../contract/fixtures.js';
import type { ListModel, OperationModel, ResourceModel } from '../contract/operations-model.js';
import type { Validator } from '../contract/schemas.js';
import type { BodyHold } from './body-budget.js';
import type { CreateBudgets } from './steps.js';
import { checkJsonContentType, parseJson, readBody } from './body.js';
import { isoNow } from './clock.js';
import { knownLot, objectBody, refuseProblems } from './handlers.js';
import type { ParamReader } from './params.js';
import { problem } from './problems.js';
import type { RecordModel } from './record-model.js';
import { changedRecord, matches, unmet, type RecordChange } from './records.js';
import { sendBody, sendEmpty } from './respond.js';
import { SESSION_HEADER, sessionName } from './state.js';
import { recordNotFound } from './store/record-problems.js';
import type { Store } from './store/types.js';
import type { OperationSteps } from './steps.js';
import { keyText } from './store/plan.js';

/** What every record step reads of a request: its session, its parameters, and the key it names. */
interface RecordInput {
  session: string;
  params: Record<string, JsonValue>;
  key: string;
}

/** What the record steps share: the store, the resource, and how to read an operation's parameters. */
export interface RecordContext {
  store: Store;
  resource: ResourceModel;
  op: OperationModel;
  params: ParamReader;
  /** The search of the request's target (`?a=1`), for the query parameters. */
  search(req: IncomingMessage): string;
  /** A body counts while it is read; once parsed, its input and answer count against its session's share of the answers. */
  budgets: CreateBudgets;
}

/** How many times a change is tried again when the record changed between its read and its write (another replica, a concurrent request). */
const RETRIES = 5;

function readInput(ctx: RecordContext, req: IncomingMessage, path: Record<string, string>): RecordInput {
  const session = sessionName(req.headers[SESSION_HEADER]);
  const params = ctx.params(path, ctx.search(req));
  const param = ctx.op.keyParam;
  const key = param !== undefined ? keyText(params[param] ?? path[param] ?? '') : '';
  return { session, params, key };
}

async function current(ctx: RecordContext, input: RecordInput): Promise<string> {
  const found = await ctx.store.get(input.session, ctx.resource.name, input.key);
  if (found === undefined) throw recordNotFound(ctx.resource.name, input.key, input.session);
  return found;
}

/** Answers a record with the operation's success status, or its status alone when the contract answers no body. */
function answerRecord(res: ServerResponse, op: OperationModel, json: string): void {
  if (op.success.kind === 'none') sendEmpty(res, op.successStatus);
  else sendBody(res, op.successStatus, 'application/json', json);
}

/** A read of one record: 200 with it, or 404. */
export function readSteps(ctx: RecordContext): OperationSteps<RecordInput> {
  return {
    validate: (req, path) => readInput(ctx, req, path),
    handle: (input, res) => current(ctx, input).then((json) => answerRecord(res, ctx.op, json)),
  };
}

/** The records matching every equality filter given, paged by the list's limit and offset when it has them. */
export function listSteps(ctx: RecordContext, list: ListModel): OperationSteps<RecordInput> {
  return {
    validate: (req, path) => readInput(ctx, req, path),
    async handle(input, res) {
      const filters = list.filters.flatMap((f) =>
        input.params[f.param] !== undefined ? [{ member: f.member, value: input.params[f.param] ?? null }] : [],
      );
      const all = await ctx.store.all(input.session, ctx.resource.name);
      const found = all.filter((json) => filters.length === 0 || matches(JSON.parse(json) as JsonValue, filters));
      const offset = list.paging?.offset !== undefined ? Number(input.params[list.paging.offset] ?? 0) : 0;
      const limit = list.paging !== undefined ? Number(input.params[list.paging.limit] ?? found.length) : found.length;
      const page = found.slice(offset, offset + limit);
      const items = `[${page.join(',')}]`;
      // A list is made for this request: a large one counts against the answer budget until it is sent.
      ctx.budgets.answers
        .take(input.session, items.length, () => `The list of ${ctx.resource.name} in session "${input.session}"`)
        .until(res);
      if (list.shape.kind === 'array') {
        sendBody(res, ctx.op.successStatus, 'application/json', items);
        return;
      }
      // A page: the records in its array member, its integer members the count of every match (`total`).
      const extra = pageExtras(list, found.length, input.params);
      sendBody(res, ctx.op.successStatus, 'application/json', `{${JSON.stringify(list.shape.member)}:${items}${extra}}`);
    },
  };
}

/** The members of a page besides its records: an integer member counts every match; `limit` and `offset` members echo the paging. */
function pageExtras(list: ListModel, total: number, params: Record<string, JsonValue>): string {
  const members = list.shape.kind === 'page' ? list.shape.others : [];
  return members
    .flatMap((m) => {
      if (list.paging !== undefined && (m.name === list.paging.limit || m.name === list.paging.offset) && params[m.name] !== undefined)
        return [`,${JSON.stringify(m.name)}:${JSON.stringify(params[m.name])}`];
      return m.type === 'integer' ? [`,${JSON.stringify(m.name)}:${total}`] : [];
    })
    .join('');
}

/** What a change needs: the record model (server-assigned members, defaults), the request and record validators, the lots. */
export interface ChangeContext extends RecordContext {
  model: RecordModel;
  /** The request body's validator (the change's own schema), absent for an action without a body. */
  validateRequest?: Validator;
  /** The record's validator (its success schema): a change leaving a record that breaks it is refused. */
  validateRecord: Validator;
  lots: FixtureSet['lots'];
  bodyLimitBytes: number;
}

interface ChangeInput extends RecordInput {
  body?: JsonObject;
}

/** Reads and checks a change's body (media type, size, JSON object, its schema). */
function readChange(
  ctx: ChangeContext,
  req: IncomingMessage,
  path: Record<string, string>,
  res: ServerResponse,
): Promise<ChangeInput> | ChangeInput {
  const input = readInput(ctx, req, path);
  const validate = ctx.validateRequest;
  if (validate === undefined) return input;
  checkJsonContentType(req.headers['content-type'], ctx.op.requestMediaType);
  let held: BodyHold | undefined;
  return readBody(req, ctx.bodyLimitBytes, () => (held = ctx.budgets.bodies.admit(req, res))).then((bytes) => {
    const body = objectBody(parseJson(bytes));
    refuseProblems(validate(body));
    ctx.budgets.answers
      .take(input.session, bytes.length, () => `The change of ${ctx.resource.name} in session "${input.session}"`)
      .until(res);
    held?.release();
    return { ...input, body };
  });
}

/**
 * Applies `change` to the record of the input's key: the record read, changed, checked against its
 * schema and written only if nobody changed it meanwhile (tried again then). Answers the record as
 * written. A refused change (400, 409, 422) writes nothing.
 */
async function applyChange(ctx: ChangeContext, input: ChangeInput, change: (record: JsonObject) => RecordChange): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const before = await current(ctx, input);
    const record = JSON.parse(before) as JsonObject;
    const next = changedRecord(record, change(record), ctx.model, isoNow());
    refuseProblems(ctx.validateRecord(next), 'changed record');
    const json = JSON.stringify(next);
    const outcome = await ctx.store.replace(input.session, ctx.resource.name, input.key, before, json);
    if (outcome === 'replaced') return json;
    if (outcome === 'missing') throw recordNotFound(ctx.resource.name, input.key, input.session);
    if (attempt >= RETRIES)
      throw problem('busy', `The record changed ${RETRIES + 1} times while this change was being made; retry it.`, undefined, {
        'Retry-After': '1',
      });
  }
}

/** A change: a JSON merge patch (PATCH) or a replace keeping the server-assigned members (PUT). */
export function updateSteps(ctx: ChangeContext, kind: 'merge' | 'replace'): OperationSteps<ChangeInput> {
  return {
    validate: (req, path, res) => readChange(ctx, req, path, res),
    async handle(input, res) {
      const body = input.body ?? {};
      const lotMember = ctx.model.lotMember;
      const lot = kind === 'replace' && lotMember !== undefined ? knownLot(body, lotMember, ctx.lots) : undefined;
      if (kind === 'merge' && lotMember !== undefined && Object.hasOwn(body, lotMember)) knownLot(body, lotMember, ctx.lots);
      for (const name of ctx.model.readOnly) if (Object.hasOwn(body, name)) delete body[name];
      const json = await applyChange(ctx, input, () =>
        kind === 'merge' ? { kind: 'merge', patch: body } : { kind: 'replace', body, lot },
      );
      answerRecord(res, ctx.op, json);
    },
  };
}

/** An action (`x-action`): 409 unless the record has every member it requires; then the members it sets. */
export function actionSteps(ctx: ChangeContext): OperationSteps<ChangeInput> {
  const action = ctx.op.action;
  if (action === undefined) throw new Error(`${ctx.op.operationId} is no action`);
  return {
    validate: (req, path, res) => readChange(ctx, req, path, res),
    async handle(input, res) {
      const json = await applyChange(ctx, input, (record) => {
        const wrong = unmet(record, action.requires);
        if (wrong.length > 0)
          throw problem(
            'stateConflict',
            `${ctx.op.method} ${ctx.op.path} needs ${wrong.map((name) => `${name} ${JSON.stringify(action.requires[name])}`).join(', ')}; the record has ${wrong.map((name) => `${name} ${JSON.stringify(record[name] ?? null)}`).join(', ')}.`,
          );
        return { kind: 'action', sets: action.sets };
      });
      answerRecord(res, ctx.op, json);
    },
  };
}

/** A delete: the record goes (its key is never handed out again by the store), then 404. */
export function deleteSteps(ctx: RecordContext): OperationSteps<RecordInput> {
  return {
    validate: (req, path) => readInput(ctx, req, path),
    async handle(input, res) {
      const before = ctx.op.success.kind === 'none' ? undefined : await current(ctx, input);
      if (!(await ctx.store.remove(input.session, ctx.resource.name, input.key)))
        throw recordNotFound(ctx.resource.name, input.key, input.session);
      if (before === undefined) sendEmpty(res, ctx.op.successStatus);
      else sendBody(res, ctx.op.successStatus, 'application/json', before);
    },
  };
}

export type { RecordInput, ChangeInput };
export type { ServerResponse };
