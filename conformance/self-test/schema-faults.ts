/**
 * The faults derived from a contract's schemas, shared by both reference servers (the hand-written one
 * and the mock-based one): one per keyword of every member of every create's request schema
 * (`ignore|<op>|<pointer>|<keyword>`: the server accepts a body breaking exactly that keyword) and one
 * per keyword of every member of every success answer's schema (`answer|<op>|<pointer>|<keyword>`: its
 * 2xx answer breaks exactly that keyword), with the one way both servers break an answer.
 */
import { isObject, type JsonObject, type JsonValue, type OpenApiDocument } from '../../contract/document.js';
import type { Level } from '../../contract/levels.js';
import { inlineSchema, type OperationModel } from '../../contract/operations-model.js';
import { loadFixtures } from '../../contract/fixtures.js';
import type { KeywordValidator } from '../../contract/schemas.js';
import { judgeContexts } from '../../judgments/context.js';
import { documentedResponse } from '../../judgments/documented.js';
import type { JudgeContext } from '../../judgments/exchange.js';
import { baseBody, carriesMarker, derivationOf, invalidBodies, tagged, writable } from '../data.js';
import { breakingValues, generated } from '../values/derive.js';

export interface GeneratedFault {
  /** The fault as the reference server reads it. */
  fault: string;
  /** The operation it breaks (`server` for the whole-server rules). */
  operation: string;
  /** The level at which the suite must fail against it. */
  level: Level;
  /** What it breaks, for the list of survivors. */
  description: string;
  /**
   * Where it comes from: a request keyword, an answer keyword, a profile rule of the hand-written table,
   * a record's life across exchanges, or the credentials an operation accepts (the override table).
   */
  kind: 'request' | 'answer' | 'profile' | 'record' | 'auth';
}

/** A success answer's JSON schema: inlined (to walk), and its keyword validators at both levels (spec: when that level documents it). */
export interface AnswerSchema {
  schema: JsonObject;
  validate: KeywordValidator;
  spec?: KeywordValidator;
}

const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json$/i;

/** The documented JSON schema of an operation's success answer at a level, when it has one. */
function successSchemaAt(jc: JudgeContext, op: OperationModel, level: Level): JsonValue | undefined {
  const response = documentedResponse(jc, op.operationId, op.successStatus, level);
  const media = [...(response?.content.keys() ?? [])].find((m) => JSON_MEDIA.test(m));
  return media === undefined ? undefined : response?.content.get(media);
}

const answerSchemas = new WeakMap<JudgeContext, Map<string, AnswerSchema | undefined>>();

/** The schema of an operation's JSON success answer (made once per contract and operation); undefined when it answers no JSON. */
export function answerSchemaOf(jc: JudgeContext, op: OperationModel): AnswerSchema | undefined {
  let known = answerSchemas.get(jc);
  if (!known) {
    known = new Map();
    answerSchemas.set(jc, known);
  }
  if (known.has(op.operationId)) return known.get(op.operationId);
  const strict = successSchemaAt(jc, op, 'strict');
  const spec = successSchemaAt(jc, op, 'spec');
  const made =
    strict === undefined
      ? undefined
      : {
          schema: inlineSchema(jc.contracts.strict.document, strict),
          validate: jc.contracts.strict.keywordValidator(strict),
          ...(spec !== undefined ? { spec: jc.contracts.spec.keywordValidator(spec) } : {}),
        };
  known.set(op.operationId, made);
  return made;
}

/** `body` broken at `pointer` by `keyword` (the first breaking value the schema refuses there); undefined when none applies to it. */
export function breakAnswer(answer: AnswerSchema, body: JsonValue, pointer: string, keyword: string): JsonValue | undefined {
  return breakingValues(answer.schema, body).find(
    (b) => b.pointer === pointer && b.keyword === keyword && answer.validate(b.value).some((e) => e.pointer === pointer),
  )?.value;
}

/** A success body broken as each `answer|<op>|...` fault of `faults` for `op` says (unchanged when none applies). */
export function brokenAnswer(answer: AnswerSchema | undefined, faults: readonly string[], op: string, body: JsonValue): JsonValue {
  let out = body;
  for (const fault of faults) {
    const [kind, faultOp, pointer = '', keyword = ''] = fault.split('|');
    if (kind !== 'answer' || faultOp !== op || !answer) continue;
    out = breakAnswer(answer, out, pointer, keyword) ?? out;
  }
  return out;
}

/**
 * A valid instance of a success body to walk: the first fixture order for the order read; a generated
 * one for the others, an array or a page holding one generated item (so the item's members are walked).
 */
function sampleAnswer(jc: JudgeContext, op: OperationModel, schema: JsonObject): JsonValue | undefined {
  const { model, contracts } = jc;
  if (op.operationId === model.orderInfo?.operationId) {
    const [first] = loadFixtures(undefined, contracts.strict).orders.values();
    return first;
  }
  const items = (array: JsonValue | undefined): JsonValue[] | undefined => {
    const item = isObject(array) ? array['items'] : undefined;
    const value = isObject(item) ? generated(item, 1) : undefined;
    return value === undefined ? undefined : [value];
  };
  if (op.success.kind === 'array') return items(schema);
  const sample = generated(schema, 1);
  if (op.success.kind === 'page' && isObject(sample)) {
    const properties = schema['properties'];
    const one = items(isObject(properties) ? properties[op.success.member] : undefined);
    if (one !== undefined) sample[op.success.member] = one;
  }
  return sample;
}

/**
 * Request faults: the server accepts a body breaking the keyword at the member (level strict: the profile's
 * "a body breaking the schema is answered 400"); made only where a body breaks that keyword alone (else no
 * request could tell the fault from a correct server).
 */
export function requestFaults(document: OpenApiDocument): GeneratedFault[] {
  const contexts = judgeContexts(document);
  const out: GeneratedFault[] = [];
  for (const op of contexts.strict.model.creates) {
    const d = derivationOf(contexts.strict, op.operationId);
    const valid = baseBody(d, undefined);
    for (const m of writable(op)) if (carriesMarker(m) && !(m.name in valid)) valid[m.name] = tagged(d, valid, m, '', 'MARKER') ?? '';
    const seen = new Set<string>();
    for (const c of invalidBodies(d, valid)) {
      const pointer = c.pointers[0] ?? '';
      const fault = `ignore|${op.operationId}|${pointer}|${c.keyword}`;
      // A server that ignores the keyword must accept this body: no other keyword refuses it (a wrong
      // type that is also off the enum is refused by the enum; that fault is no fault).
      const others = d.validate.strict(c.body).filter((e) => !(e.pointer === pointer && e.keyword === c.keyword));
      if (seen.has(fault) || others.length > 0) continue;
      seen.add(fault);
      out.push({
        fault,
        operation: op.operationId,
        level: 'strict',
        description: `${op.operationId} accepts a body breaking ${c.keyword} at ${pointer || '(the body)'}`,
        kind: 'request',
      });
    }
  }
  return out;
}

/**
 * Answer faults: the server answers a success body breaking the keyword at the member, for every operation
 * answering JSON; level spec when the specification-level schema has the keyword.
 */
export function answerFaults(document: OpenApiDocument): GeneratedFault[] {
  const jc = judgeContexts(document).strict;
  const out: GeneratedFault[] = [];
  for (const op of jc.model.operations) {
    const answer = answerSchemaOf(jc, op);
    if (answer === undefined) continue;
    const sample = sampleAnswer(jc, op, answer.schema);
    if (sample === undefined) continue;
    const what = op.successSchema ?? (op.success.kind === 'array' || op.success.kind === 'page' ? `list of ${op.success.item}` : 'body');
    const seen = new Set<string>();
    for (const b of breakingValues(answer.schema, sample)) {
      const fault = `answer|${op.operationId}|${b.pointer}|${b.keyword}`;
      if (seen.has(fault) || !answer.validate(b.value).some((e) => e.pointer === b.pointer)) continue;
      seen.add(fault);
      out.push({
        fault,
        operation: op.operationId,
        level: answer.spec?.(b.value).some((e) => e.pointer === b.pointer) === true ? 'spec' : 'strict',
        description: `${op.operationId} answers a ${what} breaking ${b.keyword} at ${b.pointer || '(the body)'}`,
        kind: 'answer',
      });
    }
  }
  return out;
}
