/**
 * The rules of a client's request, as the validating proxy applies them to traffic it observes (the
 * suite sends only requests of its own, so these have no case and no fault of the reference server;
 * `mock/proxy/*.test.ts` shows each can fail). The same judgments validate the mock's requests.
 */
import {
  judgeCredentialsSent,
  judgeKnownOperation,
  judgeRequestJson,
  judgeRequestMediaType,
  judgeRequestSchema,
} from '../judgments/request.js';
import { REQUEST } from '../judgments/rules.js';
import { defineObservation, type Observation } from './define.js';
import { levelled } from './observe.js';

export const knownOperation: Observation = {
  id: 'request.known-operation',
  level: 'spec',
  side: 'client',
  rule: REQUEST.operation,
  judge: (input) => judgeKnownOperation(input.exchange, input.allow),
};

export const bearer: Observation = {
  id: 'request.bearer',
  level: 'spec',
  side: 'client',
  rule: REQUEST.bearer,
  judge: (input) => (input.op ? judgeCredentialsSent(input.exchange, input.jc, input.op) : []),
};

export const mediaType: Observation = {
  id: 'request.media-type',
  level: 'spec',
  side: 'client',
  rule: REQUEST.mediaType,
  judge: (input) => (input.op ? judgeRequestMediaType(input.exchange, input.jc, input.op) : []),
};

export const requestJson: Observation = {
  id: 'request.json',
  level: 'spec',
  side: 'client',
  rule: REQUEST.json,
  judge: (input) => (input.op && input.requestComplete ? judgeRequestJson(input.exchange, input.jc, input.op) : []),
};

export const requestSchema: Observation = {
  id: 'request.body-schema',
  level: 'spec',
  side: 'client',
  rule: REQUEST.schema,
  judge(input) {
    const op = input.op;
    if (!op || !input.requestComplete) return [];
    return levelled(input, (level) => judgeRequestSchema(input.exchange, input.jc, op, level));
  },
};

/** The client's request: known operation, credentials, media type, JSON, schema (in that order). */
export const requestRules = defineObservation(knownOperation, bearer, mediaType, requestJson, requestSchema);
