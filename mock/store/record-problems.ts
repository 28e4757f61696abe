/** The problems of a record's key: none with it, or one already with it. */
import { problem, type ProblemError } from '../problems.js';

/** A create whose key (chosen by the client) another record of the session already has. */
export function duplicateKey(resource: string, key: string, session: string): ProblemError {
  return problem(
    'duplicateKey',
    `A record of ${resource} with the key ${JSON.stringify(key.slice(0, 200))} already exists in session "${session}"; choose another key, or change that record (GET /__mock/${resource} lists them).`,
  );
}

/** No record of the resource has the key in the session (never created, or deleted). */
export function recordNotFound(resource: string, key: string, session: string): ProblemError {
  return problem(
    'recordNotFound',
    `No record of ${resource} has the key ${JSON.stringify(key.slice(0, 200))} in session "${session}" (never created, or deleted); GET /__mock/${resource} lists the records there are.`,
  );
}
