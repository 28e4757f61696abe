/**
 * Rules of the server's answer the validating proxy applies to traffic it observes, whose suite checks
 * are still written in their families in `conformance/checks/` (creates, request errors): each entry
 * moves into its check's module when that family becomes modules. The schema and status of every
 * answer (`answer.schema`, `answer.status`) stand for the shape checks of every operation at once.
 */
import { isObject } from '../contract/document.js';
import { judgeDefaults, judgeEcho } from '../judgments/create.js';
import { judgeDocumentedAnswer, judgeDocumentedStatus } from '../judgments/documented.js';
import { mediaTypeFault, judgeRequestSchema, securityPresented } from '../judgments/request.js';
import { judgeAcceptedBodyNotRefused, judgeMethodNotAllowed, judgeRefused } from '../judgments/request-errors.js';
import { PROFILE, SPEC } from '../judgments/rules.js';
import { childPointer } from '../util/json-pointer.js';
import { defineObservation, type Observation } from './define.js';
import { createOf, levelled } from './observe.js';
import { mediaType, requestJson, requestSchema } from './request.js';

const answerSchema: Observation = {
  id: 'answer.schema',
  level: 'spec',
  side: 'server',
  rule: `${SPEC.orderInfo} ${SPEC.lotTransfer} ${SPEC.testSample} At strict: ${PROFILE.formats} ${PROFILE.problem}`,
  judge(input) {
    const op = input.op;
    if (!op || !input.answerComplete) return [];
    return levelled(input, (level) => judgeDocumentedAnswer(input.exchange, input.jc, op, level));
  },
};

const echo: Observation = {
  id: 'answer.echo',
  level: 'spec',
  side: 'server',
  rule: `${SPEC.lotTransfer} ${SPEC.testSample}`,
  judge(input) {
    const op = createOf(input);
    if (!op || !input.sent || !isObject(input.answerBody)) return [];
    return judgeEcho(input.exchange, input.jc, op, input.sent);
  },
};

const statusDocumented: Observation = {
  id: 'answer.status',
  level: 'strict',
  side: 'server',
  rule: PROFILE.documentedStatus,
  judge: (input) => (input.op ? judgeDocumentedStatus(input.exchange, input.jc, input.op) : []),
};

const wrongMethod: Observation = {
  id: 'answer.unknown-route',
  level: 'strict',
  side: 'server',
  rule: PROFILE.wrongMethod,
  judge(input) {
    const [first, ...others] = input.allow ?? [];
    if (input.op || first === undefined) return [];
    const found = judgeMethodNotAllowed(input.exchange, PROFILE.wrongMethod, first);
    // A wrong status is one violation; with 405, the Allow header must list every method of the path.
    if (found.some((v) => v.header === undefined)) return found;
    return [...found, ...others.flatMap((method) => judgeMethodNotAllowed(input.exchange, PROFILE.wrongMethod, method))];
  },
};

const inputStatus: Observation = {
  id: 'answer.input-status',
  level: 'strict',
  side: 'server',
  rule: `${PROFILE.mediaType} ${PROFILE.malformed} ${PROFILE.schema}`,
  judge(input) {
    const op = createOf(input);
    const answer = input.exchange.answer;
    if (!op || !answer || !input.requestComplete || answer.status === 401) return [];
    if (securityPresented(input.exchange.request, input.jc.model.get(op).security).kind !== 'well-formed') return [];
    if (input.clientRules.has(mediaType.id)) {
      // A charset other than UTF-8 is the client's fault (RFC 8259 §8.1, `mediaTypeFault`), but the profile
      // asks nothing of the server's answer to it (the mock refuses it 415; a server may read it as UTF-8).
      const wanted = input.jc.model.get(op).requestMediaType ?? 'application/json';
      if (mediaTypeFault(input.exchange.request.headers['content-type'], wanted)?.kind === 'charset') return [];
      return judgeRefused(input.exchange, input.jc, PROFILE.mediaType, 415);
    }
    if (input.clientRules.has(requestJson.id)) return judgeRefused(input.exchange, input.jc, PROFILE.malformed, 400);
    if (input.clientRules.has(requestSchema.id)) return judgeRefused(input.exchange, input.jc, PROFILE.schema, 400);
    return judgeAcceptedBodyNotRefused(input.exchange);
  },
};

const defaults: Observation = {
  id: 'answer.defaults',
  level: 'strict',
  side: 'server',
  rule: PROFILE.defaults,
  judge(input) {
    const op = createOf(input);
    if (!op || !input.sent || !isObject(input.answerBody)) return [];
    return judgeDefaults(input.exchange, input.jc, op, input.sent, input.lot);
  },
};

const errorPointers: Observation = {
  id: 'answer.error-pointers',
  level: 'strict',
  side: 'server',
  rule: `${PROFILE.schema} ${PROFILE.unknownLot}`,
  judge(input) {
    const op = createOf(input);
    const answer = input.exchange.answer;
    const { model } = input.jc;
    // Without an `errors` list answer.schema reports the answer; here the list is judged.
    const errors = model.errorsMember;
    if (!op || !answer || errors === undefined || !isObject(input.answerBody) || !Array.isArray(input.answerBody[errors])) return [];
    if (answer.status === 400) {
      const problems = judgeRequestSchema(input.exchange, input.jc, op, 'strict').flatMap((v) =>
        v.pointer !== undefined ? [v.pointer] : [],
      );
      return judgeRefused(input.exchange, input.jc, PROFILE.schema, 400, problems);
    }
    const lotMember = model.create(op).recordModel?.lotMember;
    if (answer.status !== 422 || lotMember === undefined) return [];
    return judgeRefused(input.exchange, input.jc, PROFILE.unknownLot, 422, [childPointer('', lotMember)]);
  },
};

/** Every answer of an operation: the schema of its status, a documented status. */
export const documentedObserved = defineObservation(answerSchema, statusDocumented);
/** A create's answer: the members sent come back, the defaults filled in. */
export const createObserved = defineObservation(echo, defaults);
/** Refused requests: a wrong method, a refused body's status and its error pointers. */
export const requestErrorsObserved = defineObservation(wrongMethod, inputStatus, errorPointers);
