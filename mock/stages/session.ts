/**
 * The session echo stage: a valid session a request names is answered back, so its client (the
 * conformance suite) sees that this server keeps mock sessions, and which one holds what it created.
 */
import type { BaseExchange, Stage } from '../pipeline.js';
import { isSessionName, SESSION_ANSWER_HEADER, SESSION_HEADER } from '../state.js';

export function sessionEchoStage<X extends BaseExchange>(): Stage<X> {
  return {
    name: 'session echo',
    run(x) {
      const named = x.req.headers[SESSION_HEADER];
      if (typeof named === 'string' && isSessionName(named)) x.res.setHeader(SESSION_ANSWER_HEADER, named);
      return x;
    },
  };
}
