/**
 * The static comparison: every change between two contracts, per operation and member, classified
 * for clients and for servers written for the old contract (`classify.ts`), with the JSON Pointer of
 * the fact in both documents and its level (a keyword the `x-profile` marker lists, a success status
 * marked `x-spec-status`, a response marked `x-profile: true`, security where the object holding it lists
 * `security` in its `x-profile`: profile; anything else: specification).
 */
import type { JsonValue, OpenApiDocument } from '../../contract/document.js';
import { childPointer } from '../../util/json-pointer.js';
import {
  REQUEST_ONLY,
  isClosed,
  keywordVerdict,
  memberVerdict,
  operationVerdict,
  requiredVerdict,
  sameValue,
  type Verdict,
} from './classify.js';
import type { Located, SchemaFacts } from './located.js';
import type { Change, ChangeLevel, Place } from './model.js';
import { securityChanges } from './security-changes.js';
import { contractSurface, type OperationSurface, type SecuritySurface } from './surface.js';

interface Where {
  operationId: string;
  operation: string;
  place: Place;
}

/** A profile rule where it is written in each contract that has it; else a specification fact. */
function levelOf(...facts: (Located | undefined)[]): ChangeLevel {
  const present = facts.filter((f): f is Located => f !== undefined);
  return present.length > 0 && present.every((f) => f.profile) ? 'profile' : 'spec';
}

/** Adds one change to the list. */
function push(
  out: Change[],
  where: Where,
  member: string,
  aspect: string,
  verdict: Verdict,
  values: { old?: JsonValue | undefined; new?: JsonValue | undefined },
  pointers: { old: string; new: string },
  level: ChangeLevel,
): void {
  out.push({
    id: [
      where.operationId,
      where.place,
      member !== '' ? member : where.place === 'operation' ? '' : '(body)',
      aspect === where.place ? '' : aspect,
    ]
      .filter((part) => part !== '')
      .join(' '),
    operationId: where.operationId,
    operation: where.operation,
    place: where.place,
    member,
    aspect,
    direction: verdict.direction,
    ...(values.old !== undefined ? { old: values.old } : {}),
    ...(values.new !== undefined ? { new: values.new } : {}),
    pointers,
    level,
    clients: verdict.clients,
    servers: verdict.servers,
    reason: verdict.reason,
  });
}

/** Request changes of a member that the answer echoes (same member, keyword and values): `member aspect old new`. */
type EchoKeys = Set<string>;
const echoKey = (member: string, keyword: string, a: JsonValue | undefined, b: JsonValue | undefined): string =>
  JSON.stringify([member, keyword, a ?? null, b ?? null]);

function compareSchemas(
  out: Change[],
  where: Where,
  member: string,
  before: SchemaFacts,
  after: SchemaFacts,
  echo: { keys: EchoKeys; record: boolean },
): void {
  const place = where.place === 'request' ? 'request' : 'answer';
  const keywords = new Set([...before.keywords.keys(), ...after.keywords.keys()]);
  for (const keyword of keywords) {
    if (place === 'answer' && REQUEST_ONLY.has(keyword)) continue;
    const a = before.keywords.get(keyword);
    const b = after.keywords.get(keyword);
    const echoed = echo.keys.has(echoKey(member, keyword, a?.value, b?.value));
    const verdict = keywordVerdict(place, keyword, a?.value, b?.value, { echoed });
    if (!verdict) continue;
    if (echo.record && member.split('/').length === 2 && before.keywords.get('readOnly')?.value !== true)
      echo.keys.add(echoKey(member, keyword, a?.value, b?.value));
    push(
      out,
      where,
      member,
      keyword,
      verdict,
      { old: a?.value, new: b?.value },
      { old: a?.pointer ?? before.pointer, new: b?.pointer ?? after.pointer },
      levelOf(a, b),
    );
  }
  const names = new Set([...before.properties.keys(), ...after.properties.keys()]);
  for (const name of names) {
    const path = childPointer(member, name);
    const a = before.properties.get(name);
    const b = after.properties.get(name);
    const wasRequired = before.required.get(name);
    const isRequired = after.required.get(name);
    if (a && b) {
      if ((wasRequired !== undefined) !== (isRequired !== undefined)) {
        push(
          out,
          where,
          path,
          'required',
          requiredVerdict(place, isRequired !== undefined),
          { old: wasRequired !== undefined, new: isRequired !== undefined },
          { old: wasRequired?.pointer ?? before.pointer, new: isRequired?.pointer ?? after.pointer },
          levelOf(wasRequired, isRequired),
        );
      }
      compareSchemas(out, where, path, a, b, echo);
      continue;
    }
    const added = b !== undefined;
    push(
      out,
      where,
      path,
      'member',
      memberVerdict(place, added, { oldClosed: isClosed(before.keywords), newClosed: isClosed(after.keywords) }),
      added ? { new: true } : { old: true },
      {
        old: a?.pointer ?? before.propertiesPointer ?? before.pointer,
        new: b?.pointer ?? after.propertiesPointer ?? after.pointer,
      },
      'spec',
    );
    // A new member that is required: its being required is a change of its own (of the level the `required` list has).
    if (added && isRequired !== undefined)
      push(
        out,
        where,
        path,
        'required',
        requiredVerdict(place, true),
        { old: false, new: true },
        { old: before.pointer, new: isRequired.pointer },
        levelOf(isRequired),
      );
  }
  if (before.items && after.items) compareSchemas(out, where, `${member}/*`, before.items, after.items, echo);
}

function operationFacts(op: OperationSurface): Record<string, { value: JsonValue | undefined; fact?: Located; level: ChangeLevel }> {
  const successes = op.successes.map((s) => s.status);
  return {
    'method-path': { value: `${op.method} ${op.path}`, level: 'spec' },
    'success-status': {
      value: successes,
      ...(op.successes[0] ? { fact: { value: successes, pointer: op.successes[0].pointer, profile: op.successes[0].profile } } : {}),
      level: op.successes.length > 0 && op.successes.every((s) => s.profile) ? 'profile' : 'spec',
    },
    'max-body-bytes': {
      value: op.maxBodyBytes?.value,
      ...(op.maxBodyBytes ? { fact: op.maxBodyBytes } : {}),
      level: levelOf(op.maxBodyBytes),
    },
    'request-body-required': {
      value: op.request?.required.value,
      ...(op.request ? { fact: op.request.required } : {}),
      level: 'spec',
    },
    'media-types': { value: op.request?.mediaTypes, level: 'spec' },
  };
}

function compareOperations(out: Change[], before: OperationSurface, after: OperationSurface): void {
  const where: Where = { operationId: after.operationId, operation: `${after.method} ${after.path}`, place: 'operation' };
  const a = operationFacts(before);
  const b = operationFacts(after);
  for (const aspect of Object.keys(a)) {
    const x = a[aspect];
    const y = b[aspect];
    if (!x || !y || sameValue(x.value, y.value)) continue;
    const verdict = operationVerdict(aspect, x.value, y.value);
    if (!verdict) continue;
    const level: ChangeLevel = x.level === 'profile' && y.level === 'profile' ? 'profile' : 'spec';
    push(
      out,
      where,
      '',
      aspect,
      verdict,
      { old: x.value, new: y.value },
      { old: x.fact?.pointer ?? before.pointer, new: y.fact?.pointer ?? after.pointer },
      level,
    );
  }
  // Security: a profile decision where the object holding the requirements marks it, in each contract that writes them.
  const written = [before.security, after.security].filter((s: SecuritySurface) => s.model.pointer !== undefined);
  const securityLevel: ChangeLevel = written.length > 0 && written.every((s) => s.profile) ? 'profile' : 'spec';
  for (const change of securityChanges(before.security, after.security))
    push(out, where, '', change.aspect, change.verdict, { old: change.old, new: change.new }, change.pointers, securityLevel);
  const errorsBefore = new Map(before.errors.map((e) => [e.status, e]));
  const errorsAfter = new Map(after.errors.map((e) => [e.status, e]));
  for (const status of new Set([...errorsBefore.keys(), ...errorsAfter.keys()])) {
    const x = errorsBefore.get(status);
    const y = errorsAfter.get(status);
    if (x && y) continue;
    const verdict = operationVerdict('error-status', x?.status, y?.status);
    if (!verdict) continue;
    const profile = [x, y].every((f) => f === undefined || f.profile);
    push(
      out,
      where,
      '',
      `error-status ${status}`,
      verdict,
      { old: x?.status, new: y?.status },
      { old: x?.pointer ?? childPointer(before.pointer, 'responses'), new: y?.pointer ?? childPointer(after.pointer, 'responses') },
      profile ? 'profile' : 'spec',
    );
  }
  const echo = { keys: new Set<string>(), record: true };
  if (before.request?.schema && after.request?.schema)
    compareSchemas(out, { ...where, place: 'request' }, '', before.request.schema, after.request.schema, echo);
  if (before.answer && after.answer)
    compareSchemas(out, { ...where, place: 'answer' }, '', before.answer, after.answer, { keys: echo.keys, record: false });
}

/** An operation only one contract has: added (only in the `new` one) or removed (only in the `old` one). */
function pushLoneOperation(out: Change[], op: OperationSurface, only: 'old' | 'new'): void {
  const verdict = only === 'new' ? operationVerdict('operation', undefined, true) : operationVerdict('operation', true, undefined);
  if (!verdict) return;
  const operation = `${op.method} ${op.path}`;
  push(
    out,
    { operationId: op.operationId, operation, place: 'operation' },
    '',
    'operation',
    verdict,
    only === 'new' ? { new: operation } : { old: operation },
    only === 'new' ? { old: '/paths', new: op.pointer } : { old: op.pointer, new: '/paths' },
    'spec',
  );
}

/** Every change from `oldDoc` to `newDoc`, in the new contract's operation order (removed operations last). */
export function diffContracts(oldDoc: OpenApiDocument, newDoc: OpenApiDocument): Change[] {
  const before = contractSurface(oldDoc);
  const after = contractSurface(newDoc);
  // An operation is the same when its operationId is; else when its method and path are (a renamed id).
  const byPlace = new Map([...before.values()].map((op) => [`${op.method} ${op.path}`, op]));
  const matched = new Set<OperationSurface>();
  const out: Change[] = [];
  for (const op of after.values()) {
    const old = before.get(op.operationId) ?? byPlace.get(`${op.method} ${op.path}`);
    if (old && !matched.has(old)) {
      matched.add(old);
      compareOperations(out, old, op);
      continue;
    }
    pushLoneOperation(out, op, 'new');
  }
  for (const op of before.values()) {
    if (matched.has(op)) continue;
    pushLoneOperation(out, op, 'old');
  }
  return out;
}
