/**
 * The control stage (mock and proxy): the control paths (`/__mock` and below), a browser's request
 * from a foreign origin refused first (`../control-guard.ts`), then answered by the server's own
 * answer (the mock's `../admin.ts`, the proxy's `../proxy/admin.ts`); any other path goes on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ADMIN_PREFIX } from '../admin.js';
import { guardControl, type ControlPolicy } from '../control-guard.js';
import { ANSWERED, type Answered, type Stage } from '../pipeline.js';
import type { TargetedExchange } from './exchange.js';

/** The mock's own paths (`/__mock`: state, control, the dashboard), in mock and proxy mode. */
export function isControlPath(pathname: string): boolean {
  return pathname === ADMIN_PREFIX || pathname.startsWith(`${ADMIN_PREFIX}/`);
}

/** How a server answers its control paths (the mock's admin API, the proxy's own): a refusal is a problem it throws. */
export type ControlAnswer = (req: IncomingMessage, res: ServerResponse, pathname: string) => void | Promise<void>;

/** Marks a later answer's completion (`.then(answered)`). */
export const answered = (): Answered => ANSWERED;

export interface ControlStageDeps {
  policy: ControlPolicy;
  answer: ControlAnswer;
}

export function controlStage<X extends TargetedExchange>(deps: ControlStageDeps): Stage<X> {
  const { policy, answer } = deps;
  return {
    name: 'control paths',
    run(x) {
      if (!isControlPath(x.pathname)) return x;
      guardControl(policy, x.req, x.res, x.host);
      const pending = answer(x.req, x.res, x.pathname);
      return pending instanceof Promise ? pending.then(answered) : ANSWERED;
    },
  };
}
