/**
 * The request pipeline shared by the mock and the validating proxy: a fixed list of typed
 * stages, each of which reads the request and what earlier stages learned, and then either lets the
 * request go on, answers it (the control paths, a preflight, the answer itself), or throws a
 * `ProblemError` (the error the stage stands for: 400 framing, 421 Host, 404/405 route, 401 security,
 * 400/413/415/422 input, 503 busy). One wrapper (`pipelineHandler`) owns what every request needs: the
 * error answer (a problem, or a logged 500 that never stops the process) and the access log.
 *
 * The stages run synchronously until one has to wait (a body, the store, a delay): only then does the
 * rest of the list run in a promise chain, so the hot GET path allocates no promise.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProblemError, PROBLEMS } from './problems.js';
import { sendProblem } from './respond.js';
import { printable } from '../util/printable.js';

/** A stage's outcome: go on (`undefined`), or the request was answered (`'answered'`); possibly later. */
export type StageResult = undefined | 'answered';

export interface Stage<X> {
  /** A short name (the ARCHITECTURE diagram, the tests). */
  name: string;
  run(exchange: X): StageResult | Promise<StageResult>;
}

/** What every exchange carries; each pipeline extends it with what its stages learn. */
export interface BaseExchange {
  req: IncomingMessage;
  res: ServerResponse;
}

/**
 * Runs `stages` from `from` on: synchronously while they answer at once. Resolves (or returns) once a
 * stage answered or the list ended; throws or rejects with the first stage's error.
 */
export function runStages<X>(stages: readonly Stage<X>[], exchange: X, from = 0): void | Promise<void> {
  for (let i = from; i < stages.length; i++) {
    const stage = stages[i];
    if (stage === undefined) continue;
    const result = stage.run(exchange);
    if (result === 'answered') return undefined;
    if (result instanceof Promise) {
      const next = i + 1;
      return result.then((outcome) => (outcome === 'answered' ? undefined : runStages(stages, exchange, next)));
    }
  }
  return undefined;
}

export interface PipelineOptions<X extends BaseExchange> {
  stages: readonly Stage<X>[];
  /** The exchange of a request, before any stage ran. */
  exchange(req: IncomingMessage, res: ServerResponse): X;
  log: (line: string) => void;
  /** No access log line per request. */
  quiet: boolean;
  /** Who answers, for the 500 text and its log line (`mock`, `proxy`). */
  who: string;
  /** The request target as the access log shows it (the proxy hides learned secrets). */
  shownTarget?: (req: IncomingMessage) => string;
  /** Appended to the access log line (the proxy marks forwarded requests). */
  note?: (exchange: X) => string;
}

/** The one request handler of a pipeline: runs the stages, answers their errors, writes the access log. */
export function pipelineHandler<X extends BaseExchange>(options: PipelineOptions<X>): (req: IncomingMessage, res: ServerResponse) => void {
  const { stages, log, who } = options;
  const shown = options.shownTarget ?? ((req: IncomingMessage) => req.url ?? '');
  const fail = (exchange: X, error: unknown): void => {
    const { req, res } = exchange;
    if (error instanceof ProblemError) {
      // No 'Connection: close' unless the problem asks for it: Node reads and drops the rest of a body
      // (bounded by the request time-out), so a client still uploading reads this answer.
      sendProblem(res, error);
      return;
    }
    log(
      `internal error on ${printable(req.method ?? '?')} ${printable(shown(req))}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendProblem(
      res,
      new ProblemError(PROBLEMS.internal, `The ${who} failed unexpectedly on this request; it was logged and the ${who} keeps running.`),
    );
  };
  return (req, res) => {
    const exchange = options.exchange(req, res);
    if (!options.quiet) {
      const started = performance.now();
      res.on('finish', () => {
        log(
          `${printable(req.method ?? '?')} ${printable(shown(req))} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms${options.note?.(exchange) ?? ''}`,
        );
      });
    }
    let pending: void | Promise<void>;
    try {
      pending = runStages(stages, exchange);
    } catch (error) {
      fail(exchange, error);
      return;
    }
    pending?.catch((error: unknown) => fail(exchange, error));
  };
}
