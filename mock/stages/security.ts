/**
 * The security stage: every operation's own security, as the contract states it; 401 (`../auth.ts`).
 * Prism's operations too: it answers only after this.
 */
import { checkSecurity, type AuthPolicy } from '../auth.js';
import type { Stage } from '../pipeline.js';
import type { RoutedExchange } from './mock-exchange.js';

export interface SecurityStageDeps {
  auth: AuthPolicy;
}

export function securityStage<X extends RoutedExchange>(deps: SecurityStageDeps): Stage<X> {
  const { auth } = deps;
  return {
    name: 'security',
    run(x) {
      checkSecurity(x.served.model.security, x.req, x.target.search, auth);
      return x;
    },
  };
}
