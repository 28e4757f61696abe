/**
 * The proxy's registered list of judgments: each entry names one rule (`id`, `side`, `level`) and
 * applies the suite's pure judgment of that rule (`judgments/`) to an exchange the proxy observed. No
 * rule is judged here: an entry only chooses when a shared judgment applies to traffic nobody
 * generated (which operation, which credentials the client presented, what it sent). A `client`
 * judgment looks at the request (the client broke the contract); a `server` judgment at the answer,
 * given the request (the server broke it). `spec` judgments hold at both levels; `strict` ones only at
 * `strict`. Everything about the API comes from the operations model (`contract/operations-model.ts`).
 */
import { isObject, type JsonObject } from '../../contract/document.js';
import type { Level } from '../../contract/levels.js';
import type { CreateOperationId, OperationId } from '../../contract/operations-model.js';
import { schemesOf } from '../../contract/security.js';
import {
  PROFILE,
  REQUEST,
  SPEC,
  judgeAcceptedBodyNotRefused,
  judgeCredentialsSent,
  judgeDefaults,
  judgeDocumentedAnswer,
  judgeDocumentedStatus,
  judgeEcho,
  judgeExactOrder,
  judgeKnownOperation,
  judgeMethodNotAllowed,
  judgeNoAccessWithout,
  judgeNoServerError,
  judgeProblemStatus,
  judgeRefused,
  judgeRequestJson,
  judgeRequestMediaType,
  mediaTypeFault,
  judgeRequestSchema,
  judgeChallenged,
  mediaTypeOf,
  securityPresented,
  type JudgeContext,
  type JudgedExchange,
  type Violation,
} from '../../judgments/index.js';
import type { Side } from './exchange.js';
import { childPointer } from '../../util/json-pointer.js';

/** A shared judgment's violation, with the level it belongs to when that differs from the entry's (a problem only the strict schema finds). */
export type Finding = Violation & { level?: Level };

/** What an entry may read; built once per exchange by judge.ts. */
export interface ProxyJudgeInput {
  exchange: JudgedExchange;
  /** The judged level's context (level, operations model, both compiled levels). */
  jc: JudgeContext;
  /** The operation the request names, if any. */
  op?: OperationId;
  /** Methods allowed on the path when the path is the contract's but the method is not. */
  allow?: string[];
  /** The path parameters, decoded. */
  params: Readonly<Record<string, string>>;
  /** Whether the whole request body / answer body was kept (a longer one is forwarded but not judged). */
  requestComplete: boolean;
  answerComplete: boolean;
  /** The request body when it is a JSON object (a create's sent members). */
  sent?: JsonObject;
  /** The answer body, parsed (undefined when absent or not JSON). */
  answerBody?: unknown;
  /** The lot a create names, as far as the proxy learnt it from order-info answers (for `x-default-from`). */
  lot?: JsonObject;
  /** The ids of the client judgments that found problems (filled before the server judgments run). */
  clientRules: ReadonlySet<string>;
}

export interface Judgment {
  id: string;
  level: Level;
  side: Side;
  /** The rule, as the suite states it (`judgments/rules.ts`). */
  rule: string;
  judge(input: ProxyJudgeInput): Finding[];
}

const none: Finding[] = [];
const is2xx = (status: number): boolean => status >= 200 && status <= 299;

/**
 * A schema judgment at the judged level, each finding labelled with the lowest level it belongs to:
 * at `strict`, a problem the spec level finds too (same place) is a `spec` problem.
 */
function levelled(input: ProxyJudgeInput, judge: (level: Level) => Violation[]): Finding[] {
  if (input.jc.level === 'spec') return judge('spec');
  const where = (v: Violation): string => `${v.in ?? ''} ${v.header ?? ''} ${v.pointer ?? ''}`;
  const atSpec = new Set(judge('spec').map(where));
  return judge('strict').map((v) => ({ ...v, level: atSpec.has(where(v)) ? ('spec' as const) : ('strict' as const) }));
}

const createOf = (input: ProxyJudgeInput): CreateOperationId | undefined =>
  input.op !== undefined && input.jc.model.isCreate(input.op) ? input.op : undefined;

// ---- the client's request ----------------------------------------------------------------------

const knownOperation: Judgment = {
  id: 'request.known-operation',
  level: 'spec',
  side: 'client',
  rule: REQUEST.operation,
  judge: (input) => judgeKnownOperation(input.exchange, input.allow),
};

const bearer: Judgment = {
  id: 'request.bearer',
  level: 'spec',
  side: 'client',
  rule: REQUEST.bearer,
  judge: (input) => (input.op ? judgeCredentialsSent(input.exchange, input.jc, input.op) : none),
};

const mediaType: Judgment = {
  id: 'request.media-type',
  level: 'spec',
  side: 'client',
  rule: REQUEST.mediaType,
  judge: (input) => (input.op ? judgeRequestMediaType(input.exchange, input.jc, input.op) : none),
};

const requestJson: Judgment = {
  id: 'request.json',
  level: 'spec',
  side: 'client',
  rule: REQUEST.json,
  judge: (input) => (input.op && input.requestComplete ? judgeRequestJson(input.exchange, input.jc, input.op) : none),
};

const requestSchema: Judgment = {
  id: 'request.body-schema',
  level: 'spec',
  side: 'client',
  rule: REQUEST.schema,
  judge(input) {
    const op = input.op;
    if (!op || !input.requestComplete) return none;
    return levelled(input, (level) => judgeRequestSchema(input.exchange, input.jc, op, level));
  },
};

// ---- the server's answer -----------------------------------------------------------------------

const noTwoXxWithoutBearer: Judgment = {
  id: 'answer.auth-no-2xx',
  level: 'spec',
  side: 'server',
  rule: SPEC.auth,
  judge(input) {
    if (!input.op) return none;
    // A well-formed credential the proxy cannot tell accepted from rejected; a malformed one a server may read leniently.
    const presented = securityPresented(input.exchange.request, input.jc.model.get(input.op).security);
    return presented.kind === 'nothing' ? judgeNoAccessWithout(input.exchange) : none;
  },
};

const answerSchema: Judgment = {
  id: 'answer.schema',
  level: 'spec',
  side: 'server',
  rule: `${SPEC.orderInfo} ${SPEC.lotTransfer} ${SPEC.testSample} At strict: ${PROFILE.formats} ${PROFILE.problem}`,
  judge(input) {
    const op = input.op;
    if (!op || !input.answerComplete) return none;
    return levelled(input, (level) => judgeDocumentedAnswer(input.exchange, input.jc, op, level));
  },
};

const exactOrder: Judgment = {
  id: 'answer.exact-order',
  level: 'spec',
  side: 'server',
  rule: SPEC.exactOrder,
  judge(input) {
    const { model } = input.jc;
    if (model.order === undefined) return none;
    const requested = input.params[model.order.numberParam];
    if (input.op !== model.orderInfo?.operationId || requested === undefined || !isObject(input.answerBody)) return none;
    return judgeExactOrder(input.exchange, input.jc, requested);
  },
};

const echo: Judgment = {
  id: 'answer.echo',
  level: 'spec',
  side: 'server',
  rule: `${SPEC.lotTransfer} ${SPEC.testSample}`,
  judge(input) {
    const op = createOf(input);
    if (!op || !input.sent || !isObject(input.answerBody)) return none;
    return judgeEcho(input.exchange, input.jc, op, input.sent);
  },
};

const statusDocumented: Judgment = {
  id: 'answer.status',
  level: 'strict',
  side: 'server',
  rule: PROFILE.documentedStatus,
  judge: (input) => (input.op ? judgeDocumentedStatus(input.exchange, input.jc, input.op) : none),
};

const wrongMethod: Judgment = {
  id: 'answer.unknown-route',
  level: 'strict',
  side: 'server',
  rule: PROFILE.wrongMethod,
  judge(input) {
    const [first, ...others] = input.allow ?? [];
    if (input.op || first === undefined) return none;
    const found = judgeMethodNotAllowed(input.exchange, PROFILE.wrongMethod, first);
    // A wrong status is one violation; with 405, the Allow header must list every method of the path.
    if (found.some((v) => v.header === undefined)) return found;
    return [...found, ...others.flatMap((method) => judgeMethodNotAllowed(input.exchange, PROFILE.wrongMethod, method))];
  },
};

const authStatus: Judgment = {
  id: 'answer.auth-401',
  level: 'strict',
  side: 'server',
  rule: PROFILE.unauthorized,
  judge(input) {
    const answer = input.exchange.answer;
    if (!input.op || !answer) return none;
    const { security } = input.jc.model.get(input.op);
    if (!security.secured) return none;
    const http = [...new Set(schemesOf(security).flatMap((s) => (s.carrier.kind === 'authorization' ? [s.carrier.scheme] : [])))];
    const presented = securityPresented(input.exchange.request, security);
    if (presented.kind === 'nothing') return is2xx(answer.status) ? none : judgeChallenged(input.exchange, http, false); // a 2xx is answer.auth-no-2xx
    // A well-formed credential answered 401 was rejected; a malformed one may be answered 400 (RFC 6750), or 401 with a challenge.
    if (answer.status !== 401) return none;
    return judgeChallenged(input.exchange, http, presented.kind === 'well-formed' && presented.bearer);
  },
};

const inputStatus: Judgment = {
  id: 'answer.input-status',
  level: 'strict',
  side: 'server',
  rule: `${PROFILE.mediaType} ${PROFILE.malformed} ${PROFILE.schema}`,
  judge(input) {
    const op = createOf(input);
    const answer = input.exchange.answer;
    if (!op || !answer || !input.requestComplete || answer.status === 401) return none;
    if (securityPresented(input.exchange.request, input.jc.model.get(op).security).kind !== 'well-formed') return none;
    if (input.clientRules.has(mediaType.id)) {
      // A charset other than UTF-8 is the client's fault (RFC 8259 §8.1, `mediaTypeFault`), but the profile
      // asks nothing of the server's answer to it (the mock refuses it 415; a server may read it as UTF-8).
      const wanted = input.jc.model.get(op).requestMediaType ?? 'application/json';
      if (mediaTypeFault(input.exchange.request.headers['content-type'], wanted)?.kind === 'charset') return none;
      return judgeRefused(input.exchange, input.jc, PROFILE.mediaType, 415);
    }
    if (input.clientRules.has(requestJson.id)) return judgeRefused(input.exchange, input.jc, PROFILE.malformed, 400);
    if (input.clientRules.has(requestSchema.id)) return judgeRefused(input.exchange, input.jc, PROFILE.schema, 400);
    return judgeAcceptedBodyNotRefused(input.exchange);
  },
};

const problemStatus: Judgment = {
  id: 'answer.problem-status',
  level: 'strict',
  side: 'server',
  rule: PROFILE.problem,
  judge(input) {
    const answer = input.exchange.answer;
    if (!answer || mediaTypeOf(answer) !== 'application/problem+json') return none;
    return judgeProblemStatus(input.exchange, input.answerBody);
  },
};

const noServerError: Judgment = {
  id: 'answer.no-5xx',
  level: 'strict',
  side: 'server',
  rule: PROFILE.noServerError,
  judge: (input) => judgeNoServerError(input.exchange),
};

const defaults: Judgment = {
  id: 'answer.defaults',
  level: 'strict',
  side: 'server',
  rule: PROFILE.defaults,
  judge(input) {
    const op = createOf(input);
    if (!op || !input.sent || !isObject(input.answerBody)) return none;
    return judgeDefaults(input.exchange, input.jc, op, input.sent, input.lot);
  },
};

const errorPointers: Judgment = {
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
    if (!op || !answer || errors === undefined || !isObject(input.answerBody) || !Array.isArray(input.answerBody[errors])) return none;
    if (answer.status === 400) {
      const problems = judgeRequestSchema(input.exchange, input.jc, op, 'strict').flatMap((v) =>
        v.pointer !== undefined ? [v.pointer] : [],
      );
      return judgeRefused(input.exchange, input.jc, PROFILE.schema, 400, problems);
    }
    const lotMember = model.create(op).recordModel?.lotMember;
    if (answer.status !== 422 || lotMember === undefined) return none;
    return judgeRefused(input.exchange, input.jc, PROFILE.unknownLot, 422, [childPointer('', lotMember)]);
  },
};

/** Every judgment, client ones first (the server ones read which client rules were broken). */
export const JUDGMENTS: readonly Judgment[] = [
  knownOperation,
  bearer,
  mediaType,
  requestJson,
  requestSchema,
  noTwoXxWithoutBearer,
  answerSchema,
  exactOrder,
  echo,
  statusDocumented,
  wrongMethod,
  authStatus,
  inputStatus,
  problemStatus,
  noServerError,
  defaults,
  errorPointers,
];
