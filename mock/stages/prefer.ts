/**
 * The prefer, faults and latency stage: what a request that would be served asks for (`Prefer: code=`,
 * `../prefer.ts`), the fault to inject (`Prefer: fault=` or a session rule, `../fault-stage.ts`), then the
 * configured latency. A 400 for a code the operation does not document or a fault the catalogue refuses.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FaultRuleStore } from '../fault-rules.js';
import { chooseInjection } from '../fault-stage.js';
import type { Stage } from '../pipeline.js';
import { choosePreference } from '../prefer.js';
import { SESSION_HEADER } from '../state.js';
import { preferred, type PreferredExchange, type ValidatedExchange } from './mock-exchange.js';

export interface PreferStageDeps {
  /** The session fault rules (in the process, or in the shared store). */
  rules: FaultRuleStore;
  /** Added to every answer (`--latency`); 0: none. */
  latencyMs: number;
}

export function preferStage(deps: PreferStageDeps): Stage<ValidatedExchange, PreferredExchange> {
  const { rules, latencyMs } = deps;
  return {
    name: 'prefer, faults and latency',
    run(x) {
      const { operation } = x.served;
      // A rule is taken only when the request names neither code= nor fault= (so choosePreference, which
      // refuses only a bad code=, cannot refuse a request whose rule was taken).
      const injection = chooseInjection(rules, x.req.headers.prefer, x.req.headers[SESSION_HEADER], operation.operationId);
      const preference = choosePreference(x.served.preferred, x.req.headers.prefer, operation.operationId);
      const latency = latencyMs > 0 ? sleep(latencyMs) : undefined;
      // A rule kept in the shared store is looked up there (only for a session that holds one).
      if (injection instanceof Promise)
        return injection.then((chosen) => {
          preferred(x, preference, chosen);
          return latency === undefined ? x : latency.then(() => x);
        });
      preferred(x, preference, injection);
      return latency === undefined ? x : latency.then(() => x);
    },
  };
}
