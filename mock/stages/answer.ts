/** The answer stage: the real, stateful answer (the operation's handle step), the preferred error, or the injected fault. */
import type { ServerResponse } from 'node:http';
import { inject, type FaultStageContext } from '../fault-stage.js';
import { ANSWERED, type Stage } from '../pipeline.js';
import type { Preference, PreferredAnswer } from '../prefer.js';
import { sendBody, sendEmpty } from '../respond.js';
import type { OperationSteps } from '../steps.js';
import { answered } from './control.js';
import type { PreferredExchange } from './mock-exchange.js';

function sendPreferred(res: ServerResponse, answer: PreferredAnswer): void {
  if (answer.contentType === undefined) sendEmpty(res, answer.status, answer.headers);
  else sendBody(res, answer.status, answer.contentType, answer.body, answer.headers);
}

/** The real, stateful answer of a request, or the error it prefers. */
function answerWith(res: ServerResponse, step: OperationSteps, input: unknown, preference: Preference): void | Promise<void> {
  if (preference.kind === 'error') return step.prefer?.(input, preference.code) ?? sendPreferred(res, preference.answer);
  return step.handle(input, res);
}

export interface AnswerStageDeps {
  /** Where an injected fault is logged, and the session rules it came from. */
  faults: FaultStageContext;
}

export function answerStage(deps: AnswerStageDeps): Stage<PreferredExchange> {
  const { faults } = deps;
  return {
    name: 'answer',
    run(x) {
      const { served, injection } = x;
      const pending =
        injection === undefined
          ? answerWith(x.res, served.steps, x.input, x.preference)
          : inject(faults, injection, x.req, x.res, served.writes, () => answerWith(x.res, served.steps, x.input, x.preference));
      return pending instanceof Promise ? pending.then(answered) : ANSWERED;
    },
  };
}
