/**
 * The faults of the mock-based reference server, as a table of overrides: the mock is the correct
 * server, and each fault kind is one entry saying which operations it applies to (derived from the
 * operations model by role, and only where the suite has the check that must catch it), what the front
 * (`front.ts`) does to the requests and answers of that operation, and what it breaks. A fault is
 * `<kind>|<operation>` (`ignore` and `answer` add `|<pointer>|<keyword>`); its level is the level of
 * the check named as the one that catches it. Every record fault lies only across exchanges: each
 * answer on its own keeps every rule of one exchange.
 */
import type { JsonObject, JsonValue, OpenApiDocument } from '../../contract/document.js';
import { isObject, mergePatch } from '../../contract/json-value.js';
import type { OperationModel, OperationsModel, ResourceModel } from '../../contract/operations-model.js';
import { securitySchemes, schemesOf, type SecurityScheme } from '../../contract/security.js';
import { is2xx } from '../../judgments/answer.js';
import type { JudgeContext } from '../../judgments/exchange.js';
import { keyOf } from '../../judgments/records.js';
import { unescapeToken } from '../../util/json-pointer.js';
import type { Check } from '../checks/types.js';
import { credentialsFor, partsOf, valueOf, withQuery, type CredentialParts, type CredentialValues } from '../../checks/credentials.js';
import { acceptsMember, baseBody, derivationOf, memberClasses } from '../data.js';
import { generated } from '../values/derive.js';
import {
  emptyAnswer,
  jsonAnswer,
  jsonOf,
  objectOf,
  withAnswerJson,
  withJsonBody,
  withoutQuery,
  withParams,
  type FrontAnswer,
  type FrontRequest,
  type Next,
  type Routed,
  type Transform,
} from './front.js';
import { REFERENCE_TOKEN } from './reference-server.js';
import { answerFaults, answerSchemaOf, breakAnswer, requestFaults, type GeneratedFault } from './schema-faults.js';

/** What the faults of a contract are derived from. */
export interface FaultSource {
  document: OpenApiDocument;
  judge: JudgeContext;
  /** The contract's checks by id: a fault is made only where the check that must catch it exists. */
  checks: ReadonlyMap<string, Check>;
}

/** What one fault's transformation may use. */
export interface FaultScope {
  model: OperationsModel;
  judge: JudgeContext;
  /** The operation the fault breaks. */
  op: OperationModel;
  /** The fault's arguments after `<kind>|<operation>` (a pointer and a keyword). */
  args: readonly string[];
  /** Sends a request to the base as it is (no fault applies to it). */
  send: Next;
  /** Sends an operation with valid credentials of its own scheme to the base: what a fault needs to know of the state. */
  internal(op: string, params: Record<string, string>, body?: JsonValue): Promise<FrontAnswer>;
}

export interface OverrideKind {
  kind: string;
  /** The faults of this kind a contract has. */
  faults(source: FaultSource): GeneratedFault[];
  /** The transformation of one fault, made once per reference server (it may keep state across requests). */
  make(scope: FaultScope): Transform;
}

/** The credentials the reference accepts: the suite's token of the self-test (for Basic: `conformance:<token>`). */
export const REFERENCE_VALUES: CredentialValues = { token: REFERENCE_TOKEN, byScheme: {} };

/** A kind with one fault per operation it applies to, caught by the check `<operation>.<aspect>` (no such check: no fault). */
function perOperation(
  kind: string,
  faultKind: GeneratedFault['kind'],
  applies: (op: OperationModel, model: OperationsModel) => boolean,
  aspect: string,
  description: (op: OperationModel) => string,
  make: OverrideKind['make'],
): OverrideKind {
  return {
    kind,
    faults(source) {
      return source.judge.model.operations.flatMap((op): GeneratedFault[] => {
        const check = source.checks.get(`${op.operationId}.${aspect}`);
        if (check === undefined || !applies(op, source.judge.model)) return [];
        return [
          {
            fault: `${kind}|${op.operationId}`,
            operation: op.operationId,
            level: check.level,
            description: description(op),
            kind: faultKind,
          },
        ];
      });
    },
    make,
  };
}

// ---- what the record faults share ----

const resourceOf = (model: OperationsModel, op: OperationModel): ResourceModel | undefined =>
  op.resource !== undefined ? model.resource(op.resource) : undefined;

const keyParamOf = (routed: Routed | undefined): string | undefined =>
  routed?.op.keyParam !== undefined ? routed.params[routed.op.keyParam] : undefined;

/** The key of a record in an answer, as text. */
function answerKey(resource: ResourceModel, answer: FrontAnswer): string | undefined {
  return is2xx(answer.status) ? keyOf(resource, objectOf(answer.body)) : undefined;
}

/** The keys of the records a front has seen created (and not deleted), in the order created. */
function createdKeys(resource: ResourceModel) {
  const keys: string[] = [];
  return {
    keys,
    /** Notes what `answer` to a request of `routed` says of the resource's keys. */
    observe(routed: Routed | undefined, answer: FrontAnswer): void {
      if (routed?.op.resource !== resource.name || !is2xx(answer.status)) return;
      if (routed.op.role === 'create') {
        const key = answerKey(resource, answer);
        if (key !== undefined && !keys.includes(key)) keys.push(key);
      } else if (routed.op.role === 'delete') {
        const at = keys.indexOf(keyParamOf(routed) ?? '');
        if (at >= 0) keys.splice(at, 1);
      }
    },
    /** The latest key created other than `key`. */
    other(key: string): string | undefined {
      return keys.findLast((k) => k !== key);
    },
  };
}

/** A key no record has that the key parameter's schema accepts (a probe sent in place of the real key). */
function absentKey(op: OperationModel): string {
  const schema = op.params.find((p) => p.in === 'path' && p.name === op.keyParam)?.schema ?? {};
  if (schema['type'] === 'integer' || schema['type'] === 'number') {
    const max = typeof schema['maximum'] === 'number' ? schema['maximum'] : Number.MAX_SAFE_INTEGER;
    return String(Math.min(max, 2_147_483_000));
  }
  const value = typeof schema['pattern'] === 'string' || typeof schema['format'] === 'string' ? generated(schema, 7) : undefined;
  return typeof value === 'string' ? value : 'selftest-absent-key';
}

/**
 * Whether the base would get as far as the record with this request: the same request for a key no record
 * has answered 404 (its credentials, parameters and body passed). A fault that answers in the base's stead
 * asks this first, so that it never answers what the base refuses.
 */
async function reachesRecord(scope: FaultScope, request: FrontRequest, routed: Routed): Promise<boolean> {
  const param = routed.op.keyParam;
  if (param === undefined) return false;
  const probe = await scope.send(withParams(request, routed, { [param]: absentKey(routed.op) }));
  return probe.status === 404;
}

/** The record of `key` as the resource's read answers it now (valid credentials); undefined when it answers none. */
async function currentRecord(scope: FaultScope, resource: ResourceModel, key: string): Promise<JsonObject | undefined> {
  const readId = resource.reads[0];
  const read = readId !== undefined ? scope.model.get(readId) : undefined;
  if (read?.keyParam === undefined || readId === undefined) return undefined;
  const answer = await scope.internal(readId, { [read.keyParam]: key });
  return is2xx(answer.status) ? objectOf(answer.body) : undefined;
}

/** The answer an operation gives with `record` on success: the record as JSON, or no body. */
const recordAnswer = (op: OperationModel, record: JsonObject): FrontAnswer =>
  op.success.kind === 'none' ? emptyAnswer(op.successStatus) : jsonAnswer(op.successStatus, record);

/** The members the server assigns (`readOnly`), the key aside. */
const assigned = (resource: ResourceModel): string[] => resource.members.filter((m) => m.readOnly).map((m) => m.name);

const hasRead = (op: OperationModel, model: OperationsModel): boolean => (resourceOf(model, op)?.reads.length ?? 0) > 0;

// ---- credentials ----

/** Every place a credential of a declared scheme may travel in, taken out of the request. */
function withoutCredentials(request: FrontRequest, schemes: readonly SecurityScheme[]): FrontRequest {
  const headers = { ...request.headers };
  const query: string[] = [];
  const cookies: string[] = [];
  for (const scheme of schemes) {
    const carrier = scheme.carrier;
    if (carrier.kind === 'authorization') delete headers['authorization'];
    else if (carrier.in === 'header') delete headers[carrier.name.toLowerCase()];
    else if (carrier.in === 'query') query.push(carrier.name);
    else cookies.push(carrier.name);
  }
  if (cookies.length > 0 && headers.cookie !== undefined) {
    const kept = headers.cookie.split(';').filter((part) => !cookies.includes(part.split('=')[0]?.trim() ?? ''));
    if (kept.length > 0) headers.cookie = kept.join(';').trim();
    else delete headers.cookie;
  }
  return withoutQuery({ ...request, headers }, query);
}

/** The request with `parts` added (headers set, cookies appended, query parameters appended). */
function withParts(request: FrontRequest, parts: CredentialParts): FrontRequest {
  const headers = { ...request.headers };
  for (const [name, value] of Object.entries(parts.headers))
    headers[name] = name === 'cookie' && headers.cookie !== undefined ? `${headers.cookie}; ${value}` : value;
  const search = withQuery(`x${request.search}`, parts.query).slice(1);
  return { ...request, headers, search };
}

/** The request with valid credentials of its operation in place of whatever it carried. */
function validlyCredentialed(request: FrontRequest, op: OperationModel, declared: readonly SecurityScheme[]): FrontRequest {
  const valid = credentialsFor(op.security, REFERENCE_VALUES);
  return valid === undefined ? request : withParts(withoutCredentials(request, declared), valid.parts);
}

/** The value a request carries where the scheme carries it (undefined: none there). */
function carried(request: FrontRequest, scheme: SecurityScheme): string | undefined {
  const carrier = scheme.carrier;
  if (carrier.kind === 'authorization') return request.headers.authorization;
  if (carrier.in === 'header') {
    const value = request.headers[carrier.name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  }
  if (carrier.in === 'query') return new URLSearchParams(request.search.slice(1)).get(carrier.name) ?? undefined;
  return cookieOf(request.headers.cookie, carrier.name);
}

function cookieOf(header: string | undefined, name: string, ignoreCase = false): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    const key = part.slice(0, at).trim();
    if (at > 0 && (ignoreCase ? key.toLowerCase() === name.toLowerCase() : key === name)) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** The request carries a valid credential of the scheme, where the scheme carries it. */
function carriesValid(request: FrontRequest, scheme: SecurityScheme): boolean {
  const wanted = partsOf(scheme, valueOf(scheme, REFERENCE_VALUES));
  const value = carried(request, scheme);
  if (scheme.carrier.kind === 'authorization') return value !== undefined && value === wanted.headers['authorization'];
  return value === valueOf(scheme, REFERENCE_VALUES);
}

/** The API key of the scheme found in any place (header, query, cookie; names in any letter case). */
function keyAnywhere(request: FrontRequest, name: string): string | undefined {
  const lower = name.toLowerCase();
  const header = request.headers[lower];
  if (typeof header === 'string') return header;
  for (const [param, value] of new URLSearchParams(request.search.slice(1))) if (param.toLowerCase() === lower) return value;
  return cookieOf(request.headers.cookie, name, true);
}

// ---- the request body faults (ignore) ----

/** A body whose only problem is (pointer, keyword) made valid there: the member set to a value the schema accepts, or left out. */
function repaired(scope: FaultScope, body: JsonObject, pointer: string): JsonObject | undefined {
  const d = derivationOf(scope.judge, scope.op.operationId);
  const name = unescapeToken(pointer.split('/')[1] ?? '');
  const member = d.op.members.find((m) => m.name === name);
  const out = { ...body };
  delete out[name];
  if (member !== undefined) {
    const base = baseBody(d, undefined);
    const candidates = [...(base[name] !== undefined ? [base[name]] : []), ...memberClasses(d, member, out).map((c) => c.value)];
    const value = candidates.find((v) => v !== undefined && acceptsMember(d, out, name, v));
    if (value !== undefined) out[name] = value;
  }
  return d.validate.strict(out).length === 0 ? out : undefined;
}

// ---- the table ----

export const OVERRIDES: readonly OverrideKind[] = [
  {
    kind: 'ignore',
    // One per keyword of every member of every create's request schema: the body breaking exactly it is
    // repaired before the base sees it, and the value sent is put back into the answer (stored as sent).
    faults: (source) => requestFaults(source.document),
    make(scope) {
      const [pointer = '', keyword = ''] = scope.args;
      const d = derivationOf(scope.judge, scope.op.operationId);
      const name = unescapeToken(pointer.split('/')[1] ?? '');
      const echoed = !(d.op.members.find((m) => m.name === name)?.readOnly ?? false);
      return async (request, routed, next) => {
        const body = routed?.op === scope.op ? objectOf(request.body) : undefined;
        const errors = body !== undefined ? d.validate.strict(body) : [];
        if (body === undefined || errors.length === 0 || !errors.every((e) => e.pointer === pointer && e.keyword === keyword))
          return next(request);
        const fixed = repaired(scope, body, pointer);
        if (fixed === undefined) return next(request);
        const answer = await next(withJsonBody(request, fixed));
        const record = is2xx(answer.status) ? objectOf(answer.body) : undefined;
        if (record === undefined || !echoed) return answer;
        const back = { ...record };
        if (body[name] === undefined) delete back[name];
        else back[name] = body[name] ?? null;
        return withAnswerJson(answer, back);
      };
    },
  },
  {
    kind: 'answer',
    // One per keyword of every member of every success answer's schema: the 2xx answer broken there.
    faults: (source) => answerFaults(source.document),
    make(scope) {
      const [pointer = '', keyword = ''] = scope.args;
      const schema = answerSchemaOf(scope.judge, scope.op);
      return async (request, routed, next) => {
        const answer = await next(request);
        if (routed?.op !== scope.op || schema === undefined || !is2xx(answer.status)) return answer;
        const body = jsonOf(answer.body);
        const broken = body !== undefined ? breakAnswer(schema, body, pointer, keyword) : undefined;
        return broken !== undefined ? withAnswerJson(answer, broken) : answer;
      };
    },
  },
  perOperation(
    'read-other',
    'record',
    (op) => op.role === 'read',
    'read-back',
    (op) => `${op.operationId} answers another record than the one its key names`,
    (scope) => {
      const resource = resourceOf(scope.model, scope.op);
      const seen = resource !== undefined ? createdKeys(resource) : undefined;
      return async (request, routed, next) => {
        const key = routed?.op === scope.op ? keyParamOf(routed) : undefined;
        const other = key !== undefined && seen?.keys.includes(key) === true ? seen.other(key) : undefined;
        const answer =
          routed !== undefined && other !== undefined && scope.op.keyParam !== undefined
            ? await next(withParams(request, routed, { [scope.op.keyParam]: other }))
            : await next(request);
        seen?.observe(routed, answer);
        return answer;
      };
    },
  ),
  perOperation(
    'unknown-key-answered',
    'record',
    (op) => op.role === 'read',
    'unknown-key',
    (op) => `${op.operationId} answers a key no record has with 200 and some record`,
    (scope) => {
      const resource = resourceOf(scope.model, scope.op);
      const seen = resource !== undefined ? createdKeys(resource) : undefined;
      return async (request, routed, next) => {
        const answer = await next(request);
        seen?.observe(routed, answer);
        const key = routed?.op === scope.op ? keyParamOf(routed) : undefined;
        const other = key !== undefined && answer.status === 404 ? seen?.other(key) : undefined;
        if (routed === undefined || other === undefined || scope.op.keyParam === undefined) return answer;
        return next(withParams(request, routed, { [scope.op.keyParam]: other }));
      };
    },
  ),
  perOperation(
    'list-ignores-filters',
    'record',
    (op, model) => op.role === 'list' && listOf(model, op)?.filters.length !== 0,
    'filters',
    (op) => `${op.operationId} ignores its filters (answers every record)`,
    (scope) => {
      const filters = listOf(scope.model, scope.op)?.filters.map((f) => f.param) ?? [];
      return (request, routed, next) => next(routed?.op === scope.op ? withoutQuery(request, filters) : request);
    },
  ),
  perOperation(
    'list-ignores-paging',
    'record',
    (op, model) => op.role === 'list' && listOf(model, op)?.paging !== undefined,
    'paging',
    (op) => `${op.operationId} ignores its limit and offset (answers its default page)`,
    (scope) => {
      const paging = listOf(scope.model, scope.op)?.paging;
      const names = paging === undefined ? [] : [paging.limit, ...(paging.offset !== undefined ? [paging.offset] : [])];
      return (request, routed, next) => next(routed?.op === scope.op ? withoutQuery(request, names) : request);
    },
  ),
  perOperation(
    'change-not-stored',
    'record',
    (op, model) => op.role === 'update' && hasRead(op, model),
    'change-sticks',
    (op) => `${op.operationId} answers a valid change as made but does not store it`,
    (scope) => {
      const resource = resourceOf(scope.model, scope.op);
      const kind = resource?.updates.find((u) => u.operationId === scope.op.operationId)?.kind;
      return async (request, routed, next) => {
        const key = routed?.op === scope.op ? keyParamOf(routed) : undefined;
        const sent = objectOf(request.body);
        if (
          routed === undefined ||
          key === undefined ||
          resource === undefined ||
          sent === undefined ||
          !(await reachesRecord(scope, request, routed))
        )
          return next(request);
        const record = await currentRecord(scope, resource, key);
        if (record === undefined) return next(request);
        const kept = Object.fromEntries(
          assigned(resource).flatMap((name) => (record[name] !== undefined ? [[name, record[name] ?? null]] : [])),
        );
        const patch = Object.fromEntries(Object.entries(sent).filter(([name]) => !(name in kept)));
        const changed = kind === 'merge' ? mergePatch(record, patch) : { ...patch, ...kept };
        return recordAnswer(scope.op, isObject(changed) ? changed : record);
      };
    },
  ),
  perOperation(
    'refused-change-applied',
    'record',
    (op, model) => op.role === 'update' && hasRead(op, model),
    'refused-change',
    (op) => `${op.operationId} answers an invalid change 400 but applies the valid part of it`,
    (scope) => {
      const resource = resourceOf(scope.model, scope.op);
      const errorsMember = scope.model.errorsMember ?? 'errors';
      const pointerMember = scope.model.pointerMember ?? 'pointer';
      return async (request, routed, next) => {
        const answer = await next(request);
        const key = routed?.op === scope.op ? keyParamOf(routed) : undefined;
        const sent = objectOf(request.body);
        if (answer.status !== 400 || key === undefined || resource === undefined || sent === undefined) return answer;
        const errors = objectOf(answer.body)?.[errorsMember];
        const broken = new Set(
          (Array.isArray(errors) ? errors : []).flatMap((e) => {
            const pointer = isObject(e) ? e[pointerMember] : undefined;
            return typeof pointer === 'string' && pointer !== '' ? [unescapeToken(pointer.split('/')[1] ?? '')] : [];
          }),
        );
        const record = await currentRecord(scope, resource, key);
        if (broken.size === 0 || record === undefined) return answer;
        // The valid part: each member the refusal names set back to its value in the record (or left out).
        const part: JsonObject = {};
        for (const [name, value] of Object.entries(sent))
          if (!broken.has(name)) part[name] = value;
          else if (record[name] !== undefined && scope.op.members.some((m) => m.name === name && !m.readOnly))
            part[name] = record[name] ?? null;
        await scope.send(withJsonBody(request, part));
        return answer;
      };
    },
  ),
  perOperation(
    'action-repeatable',
    'record',
    (op) => op.role === 'action',
    'repeat-refused',
    (op) => `${op.operationId} can be repeated: its 409 is answered 200 with the record`,
    (scope) => {
      const resource = resourceOf(scope.model, scope.op);
      const last = new Map<string, JsonObject>();
      return async (request, routed, next) => {
        const answer = await next(request);
        const key = routed?.op === scope.op ? keyParamOf(routed) : undefined;
        if (key === undefined || resource === undefined) return answer;
        const record = objectOf(answer.body);
        if (is2xx(answer.status) && record !== undefined) last.set(key, record);
        if (answer.status !== 409) return answer;
        const now = (await currentRecord(scope, resource, key)) ?? last.get(key);
        return now !== undefined ? recordAnswer(scope.op, now) : emptyAnswer(scope.op.successStatus);
      };
    },
  ),
  perOperation(
    'action-not-stored',
    'record',
    (op, model) => op.role === 'action' && hasRead(op, model),
    'applies',
    (op) => `${op.operationId} answers the action as done but does not store it`,
    (scope) => {
      const resource = resourceOf(scope.model, scope.op);
      const action = scope.op.action;
      return async (request, routed, next) => {
        const key = routed?.op === scope.op ? keyParamOf(routed) : undefined;
        if (
          routed === undefined ||
          key === undefined ||
          resource === undefined ||
          action === undefined ||
          !(await reachesRecord(scope, request, routed))
        )
          return next(request);
        const record = await currentRecord(scope, resource, key);
        const startable =
          record !== undefined &&
          Object.entries(action.requires).every(([name, value]) => JSON.stringify(record[name] ?? null) === JSON.stringify(value));
        return record !== undefined && startable ? recordAnswer(scope.op, { ...record, ...action.sets }) : next(request);
      };
    },
  ),
  perOperation(
    'delete-not-done',
    'record',
    (op) => op.role === 'delete',
    'deletes',
    (op) => `${op.operationId} answers a delete as done but keeps the record`,
    (scope) => {
      const resource = resourceOf(scope.model, scope.op);
      return async (request, routed, next) => {
        const key = routed?.op === scope.op ? keyParamOf(routed) : undefined;
        if (routed === undefined || key === undefined || resource === undefined || !(await reachesRecord(scope, request, routed)))
          return next(request);
        const exists = resource.reads.length === 0 || (await currentRecord(scope, resource, key)) !== undefined;
        return exists ? emptyAnswer(scope.op.successStatus) : next(request);
      };
    },
  ),
  perOperation(
    'delete-again-done',
    'record',
    (op) => op.role === 'delete',
    'deleted-404',
    (op) => `${op.operationId} answers the delete of a record that is gone as done (not 404)`,
    (scope) => async (request, routed, next) => {
      const answer = await next(request);
      return routed?.op === scope.op && answer.status === 404 ? emptyAnswer(scope.op.successStatus) : answer;
    },
  ),
  perOperation(
    'deleted-id-reused',
    'record',
    (op, model) => op.role === 'create' && (resourceOf(model, op)?.deletes.length ?? 0) > 0 && resourceOf(model, op)?.keyAssigned === true,
    'ids-unique-across-deletes',
    (op) => `${op.operationId} hands out the id of a deleted record again`,
    (scope) => {
      const resource = resourceOf(scope.model, scope.op);
      const deleted: string[] = [];
      /** Shown id → the base's id, and back. */
      const real = new Map<string, string>();
      const shown = new Map<string, string>();
      const relabel = (value: JsonValue | undefined): JsonValue | undefined => {
        if (resource === undefined || value === undefined) return value;
        const one = (item: JsonValue): JsonValue => {
          const key = isObject(item) ? keyOf(resource, item) : undefined;
          const as = key !== undefined ? shown.get(key) : undefined;
          return as === undefined || !isObject(item) ? item : { ...item, [resource.key]: resource.keyType === 'integer' ? Number(as) : as };
        };
        if (Array.isArray(value)) return value.map(one);
        if (!isObject(value)) return value;
        const page = resource.lists.find((l) => l.shape.kind === 'page')?.shape;
        if (page?.kind === 'page' && Array.isArray(value[page.member]))
          return { ...value, [page.member]: (value[page.member] as JsonValue[]).map(one) };
        return one(value);
      };
      return async (request, routed, next) => {
        if (resource === undefined || routed?.op.resource !== resource.name) return next(request);
        const key = keyParamOf(routed);
        const base = key !== undefined ? real.get(key) : undefined;
        const param = routed.op.keyParam;
        const answer = await next(base !== undefined && param !== undefined ? withParams(request, routed, { [param]: base }) : request);
        if (routed.op.role === 'delete' && is2xx(answer.status) && key !== undefined) deleted.push(key);
        if (routed.op === scope.op && is2xx(answer.status)) {
          const created = answerKey(resource, answer);
          const reused = deleted.shift();
          if (created !== undefined && reused !== undefined) {
            real.set(reused, created);
            shown.set(created, reused);
          }
        }
        if (shown.size === 0 || !is2xx(answer.status)) return answer;
        const body = relabel(jsonOf(answer.body));
        return body === undefined ? answer : withAnswerJson(answer, body);
      };
    },
  ),
  perOperation(
    'duplicate-key-accepted',
    'record',
    (op, model) => op.role === 'create' && resourceOf(model, op)?.keyAssigned === false,
    'duplicate-key',
    (op) => `${op.operationId} accepts a record whose key a record already has`,
    (scope) => async (request, routed, next) => {
      const answer = await next(request);
      const sent = objectOf(request.body);
      return routed?.op === scope.op && answer.status === 409 && sent !== undefined ? jsonAnswer(scope.op.successStatus, sent) : answer;
    },
  ),
  ...credentialKinds(),
];

/** The faults of the credentials an operation accepts. */
function credentialKinds(): OverrideKind[] {
  const declaredOf = (scope: FaultScope): SecurityScheme[] => [...securitySchemes(scope.judge.contracts.strict.document).values()];
  return [
    perOperation(
      'scheme-not-enforced',
      'auth',
      (op) => op.secured,
      'auth-missing-no-2xx',
      (op) => `${op.operationId} does not enforce its security (any request gets valid credentials)`,
      (scope) => {
        const declared = declaredOf(scope);
        return (request, routed, next) => next(routed?.op === scope.op ? validlyCredentialed(request, scope.op, declared) : request);
      },
    ),
    perOperation(
      'other-scheme-accepted',
      'auth',
      (op) => op.secured,
      'auth-other-scheme-no-2xx',
      (op) => `${op.operationId} accepts a valid credential of a scheme it does not name`,
      (scope) => {
        const declared = declaredOf(scope);
        const own = new Set(schemesOf(scope.op.security).map((s) => s.name));
        const others = declared.filter((s) => !own.has(s.name));
        return (request, routed, next) =>
          next(
            routed?.op === scope.op && others.some((s) => carriesValid(request, s))
              ? validlyCredentialed(request, scope.op, declared)
              : request,
          );
      },
    ),
    perOperation(
      'api-key-any-place',
      'auth',
      (op) => schemesOf(op.security).some((s) => s.carrier.kind === 'apiKey'),
      'auth-wrong-place-no-2xx',
      (op) => `${op.operationId} takes its API key from any header, query parameter or cookie of its name`,
      (scope) => {
        const keys = schemesOf(scope.op.security).filter((s) => s.carrier.kind === 'apiKey');
        return (request, routed, next) => {
          if (routed?.op !== scope.op) return next(request);
          let moved = request;
          for (const scheme of keys) {
            if (scheme.carrier.kind !== 'apiKey' || carried(moved, scheme) !== undefined) continue;
            const value = keyAnywhere(moved, scheme.carrier.name);
            if (value !== undefined) moved = withParts(moved, partsOf(scheme, value));
          }
          return next(moved);
        };
      },
    ),
    perOperation(
      'auth-403',
      'auth',
      (op) => op.secured,
      'auth-missing-401',
      (op) => `${op.operationId} answers 403 where credentials are missing or refused (not 401 with a challenge)`,
      (scope) => async (request, routed, next) => {
        const answer = await next(request);
        if (routed?.op !== scope.op || answer.status !== 401) return answer;
        const body = objectOf(answer.body);
        const headers = { ...answer.headers };
        delete headers['www-authenticate'];
        return {
          status: 403,
          headers,
          body: body !== undefined ? Buffer.from(JSON.stringify({ ...body, status: 403, title: 'Forbidden' })) : answer.body,
        };
      },
    ),
  ];
}

function listOf(model: OperationsModel, op: OperationModel) {
  return resourceOf(model, op)?.lists.find((l) => l.operationId === op.operationId);
}

/** Every fault of the table for a contract, in table order. */
export function overrideFaults(source: FaultSource): GeneratedFault[] {
  return OVERRIDES.flatMap((kind) => kind.faults(source));
}

/** The transformations of `faults` (each `<kind>|<operation>|...`); throws for a fault no kind of the table reads. */
export function transformsOf(
  faults: readonly string[],
  model: OperationsModel,
  scopeOf: (op: OperationModel, args: readonly string[]) => FaultScope,
): Transform[] {
  return faults.map((fault) => {
    const [kind, opId = '', ...args] = fault.split('|');
    const entry = OVERRIDES.find((k) => k.kind === kind);
    if (entry === undefined)
      throw new Error(`the mock-based reference has no fault "${fault}" (its kinds: ${OVERRIDES.map((k) => k.kind).join(', ')})`);
    return entry.make(scopeOf(model.get(opId), args));
  });
}
