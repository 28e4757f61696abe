/** The route stage: the operation a request names, as the mock serves it, and its path parameters; 404 or 405 (`../router.ts`). */
import type { Stage } from '../pipeline.js';
import { routeRequest, type Router } from '../router.js';
import type { Served } from '../served.js';
import type { TargetedExchange } from './exchange.js';
import { routed, type MockExchange, type RoutedExchange } from './mock-exchange.js';

export interface RouteStageDeps {
  /** Routes to every operation as the mock serves it (`../served.ts`). */
  router: Router<Served>;
}

export function routeStage(deps: RouteStageDeps): Stage<TargetedExchange<MockExchange>, RoutedExchange> {
  const { router } = deps;
  return {
    name: 'route',
    run(x) {
      const route = routeRequest(router, x.method, x.pathname);
      routed(x, route.operation, route.params);
      return x;
    },
  };
}
