/**
 * `/__mock/faults`: the session fault rules of `fault-rules.ts` over HTTP, per `X-Mock-Session`.
 *
 * - `GET /__mock/faults`: the session's live rules, where rules live (this process or the shared
 *   store), the fault catalogue, the operations and the bounds;
 * - `POST /__mock/faults` (`application/json`): adds a rule, 201 with the rule;
 * - `DELETE /__mock/faults`: removes every rule of the session; `DELETE /__mock/faults/{id}`: one.
 *
 * The changes need `--admin-token` when it is set, as reset does; a foreign page is refused before
 * (`control-guard.ts`), and a plain HTML form cannot send `application/json`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkJsonContentType, parseJson, readBody } from './body.js';
import { checkAdminToken } from './control-guard.js';
import { checkRuleInput, ruleView, RULE_LIMITS, type FaultRule, type FaultRuleStore } from './fault-rules.js';
import { FAULT_LIMITS, FAULTS, type FaultKindName } from './faults.js';
import { problem } from './problems.js';
import { sendEmpty, sendJson } from './respond.js';

/** The path below `/__mock`. */
export const FAULTS_PATH = '/faults';

/** A rule's body is small: a fault, a few operationIds, two numbers. */
const RULE_BODY_LIMIT = 16 * 1024;

export interface FaultAdmin {
  rules: FaultRuleStore;
  /** The operationIds the fault stage serves (a rule may name these). */
  operations: string[];
}

/** The methods of a fault path (below `/__mock`), or undefined when it is none. */
export function faultAdminAllowed(rest: string): string[] | undefined {
  if (rest === FAULTS_PATH) return ['GET', 'HEAD', 'POST', 'DELETE'];
  if (rest.startsWith(`${FAULTS_PATH}/`) && !rest.slice(FAULTS_PATH.length + 1).includes('/')) return ['DELETE'];
  return undefined;
}

/** What `GET /__mock/faults` answers. */
function listing(admin: FaultAdmin, session: string, rules: FaultRule[]) {
  return {
    session,
    rules: rules.map(ruleView),
    where: admin.rules.where,
    faults: (Object.keys(FAULTS) as FaultKindName[]).map((kind) => ({ kind, ...FAULTS[kind] })),
    operations: admin.operations,
    limits: { ...RULE_LIMITS, ...FAULT_LIMITS },
  };
}

/** Answers a fault path (the method is one `faultAdminAllowed` lists). */
export function handleFaultAdmin(
  admin: FaultAdmin,
  req: IncomingMessage,
  res: ServerResponse,
  rest: string,
  session: string,
  adminToken: string | undefined,
): void | Promise<void> {
  const method = req.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD')
    return Promise.resolve(admin.rules.list(session)).then((rules) => sendJson(res, 200, listing(admin, session, rules)));
  checkAdminToken(req, adminToken, `${method} /__mock/faults`);
  if (method === 'POST') {
    checkJsonContentType(req.headers['content-type']);
    return readBody(req, RULE_BODY_LIMIT)
      .then((bytes) => admin.rules.add(session, checkRuleInput(parseJson(bytes), admin.operations)))
      .then((rule) => sendJson(res, 201, ruleView(rule), { Location: `/__mock${FAULTS_PATH}/${rule.id}` }));
  }
  if (rest === FAULTS_PATH) return Promise.resolve(admin.rules.clear(session)).then(() => sendEmpty(res, 204));
  const id = rest.slice(FAULTS_PATH.length + 1);
  const notFound = () =>
    problem(
      'notFound',
      `The session "${session}" has no fault rule ${JSON.stringify(id.slice(0, 20))} (it may have expired or been used up); GET /__mock/faults lists its rules.`,
    );
  if (!/^\d{1,9}$/.test(id)) throw notFound();
  return Promise.resolve(admin.rules.remove(session, Number(id))).then((removed) => {
    if (!removed) throw notFound();
    sendEmpty(res, 204);
  });
}
