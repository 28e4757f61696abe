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

/** A stage answered the request: no later stage runs. */
export const ANSWERED = 'answered';
export type Answered = typeof ANSWERED;

/**
 * A stage's outcome: the exchange as the next stage reads it (`Out`: what this stage learned written on
 * it), or `'answered'`; possibly later.
 */
export type StageResult<Out> = Out | Answered | Promise<Out | Answered>;

/**
 * One link of the chain: reads the exchange as the stages before it left it (`In`) and leaves it as
 * `Out` for the next (the same object, with what it learned written on it). A stage that needs what an
 * earlier one learned takes that phase as its `In`, so a list that skips the earlier stage does not
 * compile: no stage checks at run time that another ran.
 */
export interface Stage<In, Out = In> {
  /** A short name (the ARCHITECTURE diagram, the tests). */
  readonly name: string;
  readonly run: (exchange: In) => StageResult<Out>;
}

/** What every exchange carries; each pipeline extends it with what its stages learn. */
export interface BaseExchange {
  req: IncomingMessage;
  res: ServerResponse;
}

/** The rest of a chain from some stage on. */
export type RunStages<X> = (exchange: X) => void | Promise<void>;

function isPending<T>(result: T | Promise<T>): result is Promise<T> {
  return result instanceof Promise;
}

/**
 * `stage`, then `rest` with what it left: at once when it answers at once, else once its promise
 * resolves (one promise per stage that waits, none for the others).
 */
function link<In, Out>(stage: Stage<In, Out>, rest: RunStages<Out>): RunStages<In> {
  const run = stage.run;
  return (exchange) => {
    const result = run(exchange);
    if (result === ANSWERED) return undefined;
    if (isPending(result)) return result.then((later) => (later === ANSWERED ? undefined : rest(later)));
    return rest(result);
  };
}

/**
 * A declared list of stages, in order: `stageList<X>().add(a).add(b)...`. Each `add` takes a stage
 * whose `In` the list so far leaves, so the order is checked when it compiles.
 */
export class StageList<Start, X> {
  private constructor(
    /** The stages' names, in order. */
    readonly names: readonly string[],
    private readonly wire: (rest: RunStages<X>) => RunStages<Start>,
  ) {}

  static empty<Start>(): StageList<Start, Start> {
    return new StageList<Start, Start>([], (rest) => rest);
  }

  /** The list with `stage` at its end. */
  add<Out>(stage: Stage<X, Out>): StageList<Start, Out> {
    const wire = this.wire;
    return new StageList<Start, Out>([...this.names, stage.name], (rest) => wire(link(stage, rest)));
  }

  /**
   * Runs the stages in order: synchronously while they answer at once. Returns (or resolves) once a
   * stage answered or the list ended; throws or rejects with the first stage's error.
   */
  runner(): RunStages<Start> {
    return this.wire(() => undefined);
  }
}

/** An empty list of stages over exchanges of type `X`, to `add` to. */
export function stageList<X>(): StageList<X, X> {
  return StageList.empty<X>();
}

export interface PipelineOptions<X extends BaseExchange> {
  stages: StageList<X, unknown>;
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
  const { log, who } = options;
  const runStages = options.stages.runner();
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
      pending = runStages(exchange);
    } catch (error) {
      fail(exchange, error);
      return;
    }
    pending?.catch((error: unknown) => fail(exchange, error));
  };
}
