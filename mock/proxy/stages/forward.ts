/**
 * The proxy's last stage: the target rebuilt (origin-form under the --proxy URL's path,
 * `../../target.ts`), the request forwarded upstream and its answer streamed back (`../forward.ts`);
 * the exchange seen is handed on for judging. Nothing is forwarded before every earlier stage passed.
 */
import { ANSWERED, type Stage } from '../../pipeline.js';
import type { TargetedExchange } from '../../stages/exchange.js';
import { proxiedTarget } from '../../target.js';
import type { Forwarder } from '../forward.js';
import type { SeenExchange } from '../seen.js';
import type { ProxyRequestExchange } from './exchange.js';

export interface ForwardStageDeps {
  forwarder: Pick<Forwarder, 'forward'>;
  /** Takes the exchange seen once its answer was delivered whole (the judging queue). */
  seen: (seen: SeenExchange) => void;
}

export function forwardStage(deps: ForwardStageDeps): Stage<TargetedExchange<ProxyRequestExchange>> {
  const { forwarder, seen } = deps;
  return {
    name: 'forward',
    run(x) {
      const forwardTo = proxiedTarget(x.target);
      x.forwarded = true;
      forwarder.forward(x.req, x.res, forwardTo, seen);
      return ANSWERED;
    },
  };
}
