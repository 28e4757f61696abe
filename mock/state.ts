/**
 * The recorded state, per isolated session (`X-Mock-Session`): the created records of each resource
 * in creation order (kept as the exact JSON they were answered with: one string a record, the least memory) and the counters of ids and
 * sequences. No header means the `default` session. Ids are never reused in a session, not even after
 * a reset (a reset clears the records, not the counters).
 */
import { problem } from './problems.js';

export const DEFAULT_SESSION = 'default';
export const SESSION_HEADER = 'x-mock-session';
const SESSION_NAME = /^[A-Za-z0-9._-]{1,64}$/;

export interface Session {
  name: string;
  records: Map<string, string[]>;
  counters: Map<string, number>;
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

export class MockState {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly maxSessions: number) {
    this.sessions.set(DEFAULT_SESSION, this.fresh(DEFAULT_SESSION));
  }

  private fresh(name: string): Session {
    return { name, records: new Map(), counters: new Map() };
  }

  find(name: string): Session | undefined {
    return this.sessions.get(name);
  }

  /** The session, created on first use; a 429 problem past the bound (`force` is for journal replay). */
  session(name: string, force = false): Session {
    let session = this.sessions.get(name);
    if (session) return session;
    if (!force && this.sessions.size - 1 >= this.maxSessions) {
      throw problem(
        'tooManySessions',
        `This mock keeps at most ${this.maxSessions} sessions besides the default one; reuse an existing X-Mock-Session name or restart the mock.`,
      );
    }
    session = this.fresh(name);
    this.sessions.set(name, session);
    return session;
  }

  names(): string[] {
    return [...this.sessions.keys()];
  }

  /** The recorded objects of a resource, as the JSON they were answered with. */
  records(name: string, resource: string): readonly string[] {
    return this.sessions.get(name)?.records.get(resource) ?? [];
  }

  /** Increments and answers a counter (`<resource>#id`, `<resource>#<member>`). */
  next(session: Session, counter: string): number {
    const value = (session.counters.get(counter) ?? 0) + 1;
    session.counters.set(counter, value);
    return value;
  }

  /** Raises a counter to at least `value` (journal replay). */
  raise(session: Session, counter: string, value: number): void {
    if (value > (session.counters.get(counter) ?? 0)) session.counters.set(counter, value);
  }

  add(session: Session, resource: string, json: string): void {
    let list = session.records.get(resource);
    if (!list) {
      list = [];
      session.records.set(resource, list);
    }
    list.push(json);
  }

  /** Clears the recorded objects of a session; its counters stay, so ids are never reused. */
  reset(name: string): void {
    this.sessions.get(name)?.records.clear();
  }
}
