/**
 * The front stages of the request pipeline (`pipeline.ts`) that the mock and the proxy share: the
 * framing RFC 9112 forbids (400), then the target and the `Host` it names (421 for a name this server
 * does not answer to), then the control paths (`/__mock`) behind the browser guard, each server
 * answering them its own way. What each later stage reads is on the exchange.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ADMIN_PREFIX } from './admin.js';
import { guardControl, type ControlPolicy } from './control-guard.js';
import { checkFraming } from './framing.js';
import { checkHost, type HostPolicy } from './host.js';
import type { BaseExchange, Stage, StageResult } from './pipeline.js';
import { parseTarget, type Target } from './target.js';

/** An exchange past the target stage: the parsed target, the Host it names, its path and method. */
export interface TargetedExchange extends BaseExchange {
  target: Target | undefined;
  host: string | undefined;
  pathname: string;
  method: string;
}

/** Marks a later stage's completion as the answer (`.then(answered)`). */
export const answered = (): StageResult => 'answered';

/** No version, no or two `Host` lines on HTTP/1.1, chunked on HTTP/1.0: 400 (`framing.ts`). */
export function framingStage<X extends BaseExchange>(): Stage<X> {
  return {
    name: 'framing',
    run(x) {
      checkFraming(x.req);
      return undefined;
    },
  };
}

/**
 * The target (origin- or absolute-form) and the Host it names: 421 for a name this server does not
 * answer to (DNS rebinding). `also` adds a check of the caller's (the proxy refuses a target naming
 * another server).
 */
export function targetStage<X extends TargetedExchange>(hosts: HostPolicy, also?: (x: X) => void): Stage<X> {
  return {
    name: 'target and Host',
    run(x) {
      const target = parseTarget(x.req.url ?? '/');
      x.target = target;
      x.host = target.authority ?? x.req.headers.host;
      checkHost(hosts, x.host);
      x.pathname = target.pathname;
      also?.(x);
      return undefined;
    },
  };
}

/** The mock's own paths (`/__mock`: state, control, the dashboard), in mock and proxy mode. */
export function isControlPath(pathname: string): boolean {
  return pathname === ADMIN_PREFIX || pathname.startsWith(`${ADMIN_PREFIX}/`);
}

/** How a server answers its control paths (the mock's admin API, the proxy's own): a refusal is a problem it throws. */
export type ControlAnswer = (req: IncomingMessage, res: ServerResponse, pathname: string) => void | Promise<void>;

/**
 * The control paths (`/__mock` and below): a browser's request from a foreign origin refused first
 * (`control-guard.ts`), then answered by `answer`; any other path goes on to the next stage.
 */
export function controlStage<X extends TargetedExchange>(policy: ControlPolicy, answer: ControlAnswer): Stage<X> {
  return {
    name: 'control paths',
    run(x) {
      if (!isControlPath(x.pathname)) return undefined;
      guardControl(policy, x.req, x.res, x.host);
      const pending = answer(x.req, x.res, x.pathname);
      return pending instanceof Promise ? pending.then(answered) : 'answered';
    },
  };
}
