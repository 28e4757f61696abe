/**
 * The faults of the self-test, derived from a contract (none typed by hand): one faulty reference
 * server per keyword of every member of every request and success schema, each breaking exactly that
 * rule, plus the hand-written table of the profile's rules (`faults.ts`) for the checks the contract has.
 * - request: the server accepts a body breaking the keyword at the member (`ignore|op|pointer|keyword`);
 *   its rule is the profile's "a body breaking the schema is answered 400" (level strict); made only
 *   where a body breaks that keyword alone (else no request could tell the fault from a correct server);
 * - answer: the server answers a success body breaking the keyword at the member
 *   (`answer|op|pointer|keyword`); level spec when the specification-level schema has the keyword.
 */
import type { JsonObject, JsonValue, OpenApiDocument } from '../../contract/document.js';
import type { Level } from '../../contract/levels.js';
import { inlineSchema, type OperationId } from '../../contract/operations-model.js';
import { loadFixtures } from '../../contract/fixtures.js';
import { judgeContexts } from '../../judgments/context.js';
import { checksFor } from '../checks/index.js';
import { baseBody, carriesMarker, derivationOf, invalidBodies, tagged, writable } from '../data.js';
import { breakingValues, generated } from '../values/derive.js';
import { FAULT_CASES } from './faults.js';

export interface GeneratedFault {
  /** The fault as the reference server reads it. */
  fault: string;
  /** The operation it breaks (`server` for the whole-server rules). */
  operation: string;
  /** The level at which the suite must fail against it. */
  level: Level;
  /** What it breaks, for the list of survivors. */
  description: string;
  /** Where it comes from: a request keyword, an answer keyword, or a profile rule of the hand-written table. */
  kind: 'request' | 'answer' | 'profile';
}

/** A valid instance of a success body to walk: the first fixture order for order info, a generated object for the others. */
function sampleAnswer(document: OpenApiDocument, op: OperationId, schema: JsonObject): JsonValue | undefined {
  const { model, contracts } = judgeContexts(document).strict;
  if (op === model.orderInfo?.operationId) {
    const [first] = loadFixtures(undefined, contracts.strict).orders.values();
    return first;
  }
  return generated(schema, 1);
}

export function generatedFaults(document: OpenApiDocument): GeneratedFault[] {
  const contexts = judgeContexts(document);
  const { model, contracts } = contexts.strict;
  const out: GeneratedFault[] = [];
  for (const op of model.creates) {
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
  for (const op of model.operations) {
    const ref = { $ref: `#/components/schemas/${op.successSchema}` };
    const schema = inlineSchema(contracts.strict.document, ref);
    const sample = sampleAnswer(document, op.operationId, schema);
    if (sample === undefined) continue;
    const strict = contracts.strict.keywordValidator(ref);
    const spec = contracts.spec.keywordValidator(ref);
    const seen = new Set<string>();
    for (const b of breakingValues(schema, sample)) {
      const fault = `answer|${op.operationId}|${b.pointer}|${b.keyword}`;
      if (seen.has(fault) || !strict(b.value).some((e) => e.pointer === b.pointer)) continue;
      seen.add(fault);
      out.push({
        fault,
        operation: op.operationId,
        level: spec(b.value).some((e) => e.pointer === b.pointer) ? 'spec' : 'strict',
        description: `${op.operationId} answers a ${op.successSchema} breaking ${b.keyword} at ${b.pointer || '(the body)'}`,
        kind: 'answer',
      });
    }
  }
  // The profile's rules: the hand-written table, for the checks this contract has.
  const checks = new Map(checksFor(document).map((c) => [c.id, c]));
  const profile = new Set<string>();
  for (const f of FAULT_CASES) {
    const check = checks.get(f.check);
    const key = f.faults.join(',');
    if (!check || profile.has(key)) continue;
    profile.add(key);
    out.push({
      fault: key,
      operation: check.operations[0] ?? 'server',
      level: check.level,
      description: `${f.faults.join(', ')} (the hand-written fault of ${f.check})`,
      kind: 'profile',
    });
  }
  return out;
}
