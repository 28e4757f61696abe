/**
 * The per-operation steps of the request path, after routing and security: `validate` (the input:
 * session, media type, size, JSON, schema, known lot) and `handle` (the real, stateful answer), plus
 * `prefer` where a preferred error answer depends on the request (the 404 names the order asked for).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonObject } from '../contract/document.js';
import type { AnswerBudget, AnswerHold } from './answer-budget.js';
import type { BodyBudget, BodyHold } from './body-budget.js';
import { checkJsonContentType, parseJson, readBody } from './body.js';
import { checkCreateBody, create, orderInfo, type CreateContext, type CreateOperation } from './handlers.js';
import { problem } from './problems.js';
import { sendBody, whenUndelivered } from './respond.js';
import { SESSION_HEADER, sessionName } from './state.js';

export interface OperationSteps<Input = unknown> {
  /**
   * Validates the request; throws a problem (400/413/415/422, 503 when its body cannot be held) or answers
   * the checked input (at once when no body is read). A body read is held until `res` closes.
   */
  validate(req: IncomingMessage, params: Record<string, string>, res: ServerResponse): Input | Promise<Input>;
  /** Answers the real, stateful answer (at once when nothing is awaited). */
  handle(input: Input, res: ServerResponse): void | Promise<void>;
  /** A preferred error answer built from the request (throws it as a problem); undefined: the contract's example. */
  prefer?(input: Input, code: string): undefined;
}

export function orderInfoSteps(bodies: Map<string, Buffer>, param: string): OperationSteps<string> {
  return {
    validate: (_req, params) => params[param] ?? '',
    handle(number, res) {
      sendBody(res, 200, 'application/json', orderInfo(bodies, number));
    },
    prefer(number, code) {
      if (code !== '404') return undefined;
      throw problem(
        'orderNotFound',
        `No order has the number ${JSON.stringify(number.slice(0, 200))} (answered 404 because of Prefer: code=404).`,
      );
    },
  };
}

interface CreateInput {
  session: string;
  body: JsonObject;
  /** The create's share of the answer budget: its parsed input, then its answer. */
  answer: AnswerHold;
}

/** The budgets a create's bytes count against: its body while it is read, then its input and answer. */
export interface CreateBudgets {
  bodies: BodyBudget;
  answers: AnswerBudget;
}

export function createSteps(
  ctx: CreateContext,
  op: CreateOperation,
  bodyLimitBytes: number,
  budgets: CreateBudgets,
): OperationSteps<CreateInput> {
  /** Sends a recorded create's answer. */
  const answer = (input: CreateInput, res: ServerResponse, json: string): void => {
    // The answer's exact size (a large one only: a small body's answer stays free).
    if (input.answer.bytes > 0) input.answer.resize(Buffer.byteLength(json));
    sendBody(res, op.status, 'application/json', json);
    // Recorded, but the answer did not go out (the client left while the store worked): the record
    // stays (a create is never undone once another request may have seen it), and the log says so.
    whenUndelivered(res, () =>
      ctx.log(
        `create recorded but its ${op.status} answer could not be sent (the client closed the connection): ${op.resource} in session "${input.session}" ${json.length > 300 ? `${json.slice(0, 300)}...` : json}; it stays recorded (GET /__mock/${op.resource})`,
      ),
    );
  };
  return {
    // Plain promise chains rather than async functions: a create is the mock's hottest path, and each
    // async function adds a promise and a turn of the microtask queue.
    validate(req, _params, res) {
      const session = sessionName(req.headers[SESSION_HEADER]);
      checkJsonContentType(req.headers['content-type']);
      let held: BodyHold | undefined;
      return readBody(req, bodyLimitBytes, () => (held = budgets.bodies.admit(req, res))).then((bytes) => {
        const body = checkCreateBody(op, parseJson(bytes), ctx.lots);
        // Parsed and checked: the create is decided. From here what it holds (its parsed input, then its
        // answer until the client has it) counts against its session's share of the answer budget, and
        // the body's share goes back: a slow answer or a fault never holds what others' bodies need.
        const answer = budgets.answers.take(session, bytes.length, () => `The create of ${op.resource} in session "${session}"`).until(res);
        held?.release();
        return { session, body, answer };
      });
    },
    handle(input, res) {
      const json = create(ctx, op, input.session, input.body);
      // The memory store answers at once: no promise on the hot path.
      if (typeof json === 'string') return answer(input, res, json);
      return json.then((later) => answer(input, res, later));
    },
  };
}
