/** The framing stage (mock and proxy): no version, no or two `Host` lines on HTTP/1.1, chunked on HTTP/1.0: 400 (`../framing.ts`). */
import { checkFraming } from '../framing.js';
import type { BaseExchange, Stage } from '../pipeline.js';

export function framingStage<X extends BaseExchange>(): Stage<X> {
  return {
    name: 'framing',
    run(x) {
      checkFraming(x.req);
      return x;
    },
  };
}
