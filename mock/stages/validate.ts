/**
 * The validate stage: the operation's own validate step (`../steps.ts`, `../record-steps.ts`): session,
 * media type, size, JSON, schema; 400, 413, 415, 422, 503 when a body cannot be held.
 */
import type { Stage } from '../pipeline.js';
import { validated, type RoutedExchange, type ValidatedExchange } from './mock-exchange.js';

export function validateStage(): Stage<RoutedExchange, ValidatedExchange> {
  return {
    name: 'validate',
    run(x) {
      const input = x.served.steps.validate(x.req, x.params, x.res);
      // Order info validates at once: no promise on the hot GET path.
      if (!(input instanceof Promise)) {
        validated(x, input);
        return x;
      }
      return input.then((later) => {
        validated(x, later);
        return x;
      });
    },
  };
}
