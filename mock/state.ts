/**
 * Sessions (`X-Mock-Session`): the name a request names, checked. No header means the `default`
 * session. The state itself (records, counters, resets, limits) has one owner: the store
 * (`store/`), in memory, in the journal, or on Redis.
 */
import { problem } from './problems.js';
import { DEFAULT_SESSION } from './store/types.js';

export { DEFAULT_SESSION };
export const SESSION_HEADER = 'x-mock-session';
const SESSION_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** The X-Mock-Session header as answers carry it (the session a request named, answered back). */
export const SESSION_ANSWER_HEADER = 'X-Mock-Session';

/** True for a valid session name (1-64 of `A-Z a-z 0-9 . _ -`). */
export function isSessionName(value: string): boolean {
  return SESSION_NAME.test(value);
}

/** The session a request names: its X-Mock-Session header, or the default one. Throws a 400 problem. */
export function sessionName(header: string | string[] | undefined): string {
  if (header === undefined) return DEFAULT_SESSION;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!SESSION_NAME.test(value)) {
    throw problem('invalidSession', `The X-Mock-Session header must be 1 to 64 characters of A-Z, a-z, 0-9, ".", "_" or "-".`);
  }
  return value;
}
