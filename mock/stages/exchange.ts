/**
 * The exchange of the request path as the shared front stages (`framing.ts`, `target.ts`,
 * `control.ts`) see it, phase by phase: what the pipeline starts with (`RequestExchange`: the target
 * not parsed yet), then after the target stage (`TargetedExchange`). The mock (`mock-exchange.ts`) and
 * the proxy (`../proxy/stages/forward.ts`) extend it with what their own stages learn.
 */
import type { BaseExchange } from '../pipeline.js';
import type { Target } from '../target.js';

/** A request as the pipeline starts with it: every slot a later stage fills is there, still empty. */
export interface RequestExchange extends BaseExchange {
  target: Target | undefined;
  /** The `Host` the target names (or the `Host` header); undefined when the request names none. */
  host: string | undefined;
  pathname: string;
  method: string;
}

/** Past the target stage: the parsed target, the Host it names, its path. */
export type TargetedExchange<X extends RequestExchange = RequestExchange> = X & { target: Target };

/** Writes the target stage's findings: from here on the exchange is targeted. */
export function targeted<X extends RequestExchange>(x: X, target: Target, host: string | undefined): asserts x is TargetedExchange<X> {
  x.target = target;
  x.host = host;
  x.pathname = target.pathname;
}
