/**
 * The rules of every answer the validating proxy applies to traffic it observes: the schema and the
 * status of every answer (`answer.schema`, `answer.status`), standing for the shape checks of every
 * operation at once (`documented.ts`). An entry of its own in the list, before the others' (the
 * proxy's order of server rules).
 */
import { judgeDocumentedAnswer, judgeDocumentedStatus } from '../judgments/documented.js';
import { PROFILE, SPEC } from '../judgments/rules.js';
import { defineObservation, type Observation } from './define.js';
import { levelled } from './observe.js';

const answerSchema: Observation = {
  id: 'answer.schema',
  level: 'spec',
  side: 'server',
  rule: `${SPEC.orderInfo} ${SPEC.lotTransfer} ${SPEC.testSample} At strict: ${PROFILE.formats} ${PROFILE.problem}`,
  judge(input) {
    const op = input.op;
    if (!op || !input.answerComplete) return [];
    return levelled(input, (level) => judgeDocumentedAnswer(input.exchange, input.jc, op, level));
  },
};

const statusDocumented: Observation = {
  id: 'answer.status',
  level: 'strict',
  side: 'server',
  rule: PROFILE.documentedStatus,
  judge: (input) => (input.op ? judgeDocumentedStatus(input.exchange, input.jc, input.op) : []),
};

/** Every answer of an operation: the schema of its status, a documented status. */
export const documentedObserved = defineObservation(answerSchema, statusDocumented);
