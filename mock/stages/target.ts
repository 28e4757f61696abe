/**
 * The target stage (mock and proxy): the target (origin- or absolute-form) and the Host it names; 421
 * for a name this server does not answer to (DNS rebinding, `../host.ts`).
 */
import { checkHost, type HostPolicy } from '../host.js';
import type { Stage } from '../pipeline.js';
import { parseTarget } from '../target.js';
import { targeted, type RequestExchange, type TargetedExchange } from './exchange.js';

export interface TargetStageDeps {
  hosts: HostPolicy;
}

export function targetStage<X extends RequestExchange>(deps: TargetStageDeps): Stage<X, TargetedExchange<X>> {
  const { hosts } = deps;
  return {
    name: 'target and Host',
    run(x) {
      const target = parseTarget(x.req.url ?? '/');
      const host = target.authority ?? x.req.headers.host;
      // The exchange carries the target before the check, as it did: a refusal's answer does not read it.
      targeted(x, target, host);
      checkHost(hosts, host);
      return x;
    },
  };
}
