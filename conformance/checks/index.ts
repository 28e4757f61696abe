/**
 * The checks the suite runs: those of the check modules (`checks/index.ts`, the one list the suite,
 * the proxy and the self-test read), adapted to the runner. The runner runs
 * each one whose level is within the chosen level, and the suite's own tests require a fault case for
 * each of them. The checks of the whole server run last (they judge every answer of the run).
 */
import type { OpenApiDocument } from '../../contract/document.js';
import { CHECK_MODULES, type CheckModule } from '../../checks/index.js';
import type { SuiteCases, SuiteCheck, SuiteContext } from '../../checks/define.js';
import type { Cases } from '../cases.js';
import type { CheckContext } from '../context.js';
import type { Exchange } from '../http.js';
import { resourceSequence } from '../sequences.js';
import { BUNDLED_FILE, sourceOf, type CheckSource } from './helpers.js';
import type { Check } from './types.js';

export type { Check } from './types.js';

/** The runner as a module's cases see it: the suite's context, and the sequence of a resource it produces (`sequences.ts`). */
function suiteContextOf(ctx: CheckContext): SuiteContext<Exchange> {
  return {
    model: ctx.model,
    judge: ctx.judge,
    config: ctx.config,
    http: ctx.http,
    send: (request) => ctx.send(request),
    path: (op, number) => ctx.path(op, number),
    bearer: () => ctx.bearer(),
    credentialsOf: (op) => ctx.credentialsOf(op),
    memo: (key, make) => ctx.memo(key, make),
    getOrder: (number, headers, path) => ctx.getOrder(number, headers, path),
    orderExchange: () => ctx.orderExchange(),
    request: (op, options) => ctx.request(op, options),
    exampleBody: (op, record) => ctx.exampleBody(op, record),
    buildRequest: (op, options) => ctx.buildRequest(op, options),
    orderRequest: (number, headers) => ctx.orderRequest(number, headers),
    afterAuthenticated: (request) => ctx.afterAuthenticated(request),
    fresh: (request) => ctx.fresh(request),
    corpus: (op) => ctx.corpus(op),
    corpusCreate: (op, index) => ctx.corpusCreate(op, index),
    parameterValue: (param) => ctx.parameterValue(param),
    validBody: (op) => ctx.validBody(op),
    sendToCreate: (op, body, headers, framing) => ctx.sendToCreate(op, body, headers, framing),
    recordSequence: (resource) => resourceSequence(ctx, resource),
    sampleGet: (headers) => ctx.sampleGet(headers),
    lots: () => ctx.lots(),
    derivation: (op) => ctx.derivation(op),
    body: (op, key) => ctx.body(op, key),
    createRecord: (op, body, options) => ctx.createRecord(op, body, options),
    extraCreate: (key, op, body, framing) => ctx.extraCreate(key, op, body, framing),
    sent: (exchange) => ctx.sent(exchange),
    verdict: (exchange, violations) => ctx.verdict(exchange, violations),
  };
}

/** The cases as a module's check sees them; an exchange of a sequence is one the runner sent (an `Exchange`, typed as what a judgment reads). */
function suiteCasesOf(t: Cases): SuiteCases<Exchange> {
  return {
    judge: (name, exchange, judge) => t.judge(name, exchange, judge),
    judgeShown: (name, shown, judge) =>
      t.judge(
        name,
        () => Promise.resolve(shown as Exchange),
        () => judge(),
      ),
    run: (name, fn, options) => t.run(name, fn, options),
  };
}

/** A module's check as the runner runs it. */
function checkOf(check: SuiteCheck): Check {
  const made: Check = {
    id: check.id,
    level: check.level,
    operations: check.operations,
    title: check.title,
    rule: check.rule,
    ...(check.write === true ? { write: true } : {}),
    cases: check.cases,
    run: (ctx, t) => check.run(suiteContextOf(ctx), suiteCasesOf(t)),
  };
  const { extraWrites } = check;
  if (typeof extraWrites === 'function') made.extraWrites = async (ctx) => [...(await extraWrites(suiteContextOf(ctx)))];
  else if (extraWrites !== undefined) made.extraWrites = () => Promise.resolve([...extraWrites]);
  if (check.prepare !== undefined) made.prepare = (ctx) => check.prepare?.(suiteContextOf(ctx)) ?? Promise.resolve();
  return made;
}

/** The checks of a contract (with the modules of `modules`): every case and every check derived from its operations model and schemas, in the list's order. */
export function checksOf(source: CheckSource, modules: readonly CheckModule[] = CHECK_MODULES): Check[] {
  return modules.flatMap((m) => m.suite(source).map(checkOf));
}

const made = new WeakMap<OpenApiDocument, readonly Check[]>();

/** The checks of a contract document (built once per document object). */
export function checksFor(document: OpenApiDocument): readonly Check[] {
  let checks = made.get(document);
  if (!checks) {
    checks = checksOf(sourceOf(document));
    made.set(document, checks);
  }
  return checks;
}

/** The checks of the bundled contract. */
export const CHECKS: readonly Check[] = checksFor(BUNDLED_FILE.document);
