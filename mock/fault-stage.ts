/**
 * The fault stage of the request path: after security and input validation, before the
 * answer, so a fault never lets a refused request through (no token is a 401, an invalid body a 400,
 * whatever the request or its session asks for). It chooses the fault of a request (its own `Prefer:
 * fault=`, else the oldest matching rule of its session) and applies it:
 *
 * - `status`, `drop`, `reset` replace the answer: the request is not handled (a create records nothing);
 * - `delay` waits, then the request is handled and answered as usual (not when the client left meanwhile);
 * - `empty`, `truncate`, `drip` damage the transport of the real answer: the request is handled (a create
 *   is recorded) and the log says what became of its answer.
 *
 * Every answer that exists carries `X-Mock-Fault: <fault>; prefer` or `X-Mock-Fault: <fault>; rule=<id>`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultRule, FaultRuleStore } from './fault-rules.js';
import { delayMs, faultText, INJECTED_STATUSES, FAULT_LIMITS, parseFault, preferredFault, truncatedLength, type Fault } from './faults.js';
import { preferredCode } from './prefer.js';
import { problem } from './problems.js';
import { printable } from '../util/printable.js';
import { deliverThrough, type Delivery } from './respond.js';
import { sessionName } from './state.js';

/** The header naming the fault an answer got. */
export const FAULT_HEADER = 'X-Mock-Fault';

/** A fault chosen for one request. */
export interface Injection {
  fault: Fault;
  /** The `X-Mock-Fault` value: `status:503; prefer` or `status:503; rule=3`. */
  marker: string;
  /** Who asked for it, in words (`Prefer: fault=status:503`, `the fault rule 3 of session "a"`). */
  origin: string;
}

export interface FaultStageContext {
  rules: FaultRuleStore;
  log: (line: string) => void;
  /** No log line per fault (a create recorded with a damaged answer is logged all the same). */
  quiet: boolean;
}

function headerText(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header.join(', ') : header;
}

function sessionOf(header: string | string[] | undefined): string | undefined {
  try {
    return sessionName(header);
  } catch {
    return undefined; // an operation that does not read the session (order info) stays as it is; it just gets no rule
  }
}

/**
 * The fault of a request that passed security and validation, or undefined. Its own `Prefer: fault=`
 * comes first; a request that names a `code=` or a `fault=` never uses a session rule. Throws a 400
 * `invalid-fault` for a fault the catalogue does not allow, or for `code=` and `fault=` together.
 * Answers at once unless a rule of the session has to be looked up in the shared store.
 */
export function chooseInjection(
  rules: FaultRuleStore,
  prefer: string | string[] | undefined,
  sessionHeader: string | string[] | undefined,
  operationId: string,
): Injection | undefined | Promise<Injection | undefined> {
  const header = headerText(prefer);
  const asked = preferredFault(header);
  if (asked !== undefined) {
    if (preferredCode(header) !== undefined)
      throw problem(
        'invalidFault',
        'Prefer asks for both code= and fault=; send one of them (a fault replaces or damages the real answer).',
      );
    const fault = parseFault(asked, 'Prefer: fault=');
    return { fault, marker: `${faultText(fault)}; prefer`, origin: `Prefer: fault=${faultText(fault)}` };
  }
  if (rules.empty || preferredCode(header) !== undefined) return undefined;
  const session = sessionOf(sessionHeader);
  if (session === undefined) return undefined;
  const rule = rules.take(session, operationId);
  return rule instanceof Promise ? rule.then((taken) => injectionOf(taken, session)) : injectionOf(rule, session);
}

function injectionOf(rule: FaultRule | undefined, session: string): Injection | undefined {
  if (!rule) return undefined;
  return {
    fault: rule.fault,
    marker: `${faultText(rule.fault)}; rule=${rule.id}`,
    origin: `the fault rule ${rule.id} of session "${session}"`,
  };
}

/** Resolves true after `ms`, or false as soon as the answer's connection closes. */
function waitUnlessClosed(res: ServerResponse, ms: number): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(!res.destroyed);
    }, ms);
    res.once('close', onClose);
  });
}

/** Ends the connection after what was written so far (FIN once it is flushed), with no more of the answer. */
function closeMidAnswer(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) {
    res.destroy();
    return;
  }
  socket.end(() => socket.destroy());
}

/** How often a drip sends the bytes due. */
const DRIP_TICK_MS = 100;

/** The delivery of a fault that damages the real answer; `report(text, status)` says what became of it. */
function damagedDelivery(
  fault: Extract<Fault, { kind: 'empty' | 'truncate' | 'drip' }>,
  report: (text: string, status: number) => void,
): Delivery {
  switch (fault.kind) {
    case 'empty':
      return (res, status, headers, body) => {
        res.writeHead(status, { ...headers, 'Content-Length': 0 });
        res.end();
        report(`answered ${status} without its body (${body.length} bytes)`, status);
      };
    case 'truncate':
      return (res, status, headers, body) => {
        const cut = truncatedLength(fault, body.length);
        res.writeHead(status, headers);
        res.flushHeaders();
        if (cut > 0) res.write(body.subarray(0, cut), () => closeMidAnswer(res));
        else closeMidAnswer(res);
        report(`answered ${status} with ${cut} of its ${body.length} body bytes, then closed the connection`, status);
      };
    case 'drip':
      return (res, status, headers, body) => {
        res.writeHead(status, headers);
        res.flushHeaders();
        let sent = 0;
        let ticks = 0;
        const timer = setInterval(() => {
          ticks += 1;
          const due = Math.min(body.length, Math.floor((fault.bytesPerSecond * ticks * DRIP_TICK_MS) / 1000));
          if (due <= sent) return;
          const slice = body.subarray(sent, due);
          sent = due;
          if (sent < body.length) res.write(slice);
          else {
            clearInterval(timer);
            res.end(slice);
          }
        }, DRIP_TICK_MS);
        res.once('close', () => {
          clearInterval(timer);
          if (sent < body.length) report(`the connection closed after ${sent} of the ${body.length} dripped body bytes`, status);
        });
        if (body.length === 0) {
          clearInterval(timer);
          res.end();
        }
        const seconds = Math.ceil(body.length / fault.bytesPerSecond);
        report(`answering ${status}, its ${body.length} body bytes at ${fault.bytesPerSecond} bytes/s (about ${seconds} s)`, status);
      };
  }
}

/**
 * Applies a fault to a request about to be answered; `answer` gives the real answer. `records` says
 * whether handling the request records something (a create). A `status` fault throws its problem.
 */
export function inject(
  ctx: FaultStageContext,
  injection: Injection,
  req: IncomingMessage,
  res: ServerResponse,
  records: boolean,
  answer: () => void | Promise<void>,
): void | Promise<void> {
  const { fault, marker } = injection;
  const note = (text: string, always = false) => {
    if (always || !ctx.quiet) ctx.log(`fault ${marker} on ${printable(req.method ?? '?')} ${printable(req.url ?? '')}: ${text}`);
  };
  const notHandled = records ? 'not handled, nothing recorded' : 'not handled';
  switch (fault.kind) {
    case 'status': {
      note(`answered ${fault.status}; ${notHandled}`);
      const headers: Record<string, string> = { [FAULT_HEADER]: marker };
      if (fault.status === 503) headers['Retry-After'] = String(FAULT_LIMITS.retryAfterSeconds);
      throw problem(
        INJECTED_STATUSES[fault.status],
        `${injection.origin} answered ${fault.status} instead of the real answer: an injected fault, not a failure; the request was ${notHandled}.`,
        undefined,
        headers,
      );
    }
    case 'drop':
    case 'reset':
      note(`${fault.kind === 'drop' ? 'closed' : 'reset'} the connection without an answer; ${notHandled}`);
      if (!req.socket.destroyed) {
        if (fault.kind === 'drop') req.socket.destroy();
        else req.socket.resetAndDestroy();
      }
      return;
    case 'delay': {
      res.setHeader(FAULT_HEADER, marker);
      const ms = delayMs(fault);
      return waitUnlessClosed(res, ms).then((open) => {
        if (open) return answer();
        note(`the client left during the ${ms} ms delay; ${notHandled}`);
      });
    }
    default:
      res.setHeader(FAULT_HEADER, marker);
      deliverThrough(
        res,
        damagedDelivery(fault, (text, status) => {
          const recorded = records && status < 300;
          note(recorded ? `the create was recorded and stays recorded (see the /__mock listings); ${text}` : text, recorded);
        }),
      );
      return answer();
  }
}
