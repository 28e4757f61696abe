/**
 * The answer bytes held at once for clients that have not read them yet, all connections together
 * (`--max-answer-bytes-in-flight`), as `body-budget.ts` bounds the request bodies being read.
 *
 * An answer made for one request and larger than `freePerAnswer` (64 KiB) counts in full from when it
 * is decided (a create: once its body is parsed and checked, so its parsed input counts too; a listing:
 * before its page is read from the store) until its last byte has been handed to the connection, or the
 * connection is gone. A slow reader (or a dripping fault) therefore holds its own answer's bytes and
 * nothing more: past the budget a new large answer is a 503 `mock-busy`, never more memory. Smaller
 * answers are never charged (their sum is bounded by `--max-connections` × 64 KiB), and answers written
 * from one shared copy (order info, the model, the dashboard, the contract's examples) cost nothing per
 * reader and are not charged either.
 *
 * One session holds at most half of the budget, so one session's slow readers and faults never take
 * what the other sessions need.
 */
import type { ServerResponse } from 'node:http';
import { problem, type ProblemError } from './problems.js';

/** One answer's share of the budget. */
export interface AnswerHold {
  /** The bytes charged now. */
  readonly bytes: number;
  /**
   * Sets the charge to the answer's exact size, once known (a create's JSON): nothing when it is at
   * most `freePerAnswer`. Always done (the answer exists): it may pass the budget by the difference.
   * A hold taken for at most `freePerAnswer` bytes stays free (a small create's answer is its body
   * and a few members the mock assigns).
   */
  resize(bytes: number): void;
  /**
   * Charges the answer's exact size when it passes what is held, if the budget has room: false (and
   * nothing changed) when it has not. A size of at most `freePerAnswer` is free.
   */
  fit(bytes: number): boolean;
  /** Gives back `bytes` of the charge (a part of the answer handed to the connection). */
  release(bytes: number): void;
  /** Gives back the whole charge when `res` closes (its answer sent, or the client gone). */
  until(res: ServerResponse): this;
}

/** The hold of a small answer: never charged. */
const FREE: AnswerHold = {
  bytes: 0,
  resize: () => undefined,
  fit: () => true,
  release: () => undefined,
  until: () => FREE,
};

export class AnswerBudget {
  private used = 0;
  /** The bytes each session holds (sessions holding none are not kept). */
  private readonly sessions = new Map<string, number>();

  /**
   * @param max bytes of answers held at once, all connections together
   * @param freePerAnswer an answer up to this size is never charged (bounded by the connection limit)
   */
  constructor(
    readonly max: number,
    readonly freePerAnswer = 64 * 1024,
  ) {}

  /** The most one session holds at once: half of the budget. */
  get perSession(): number {
    return Math.floor(this.max / 2);
  }

  /** The bytes held now, all sessions together (tests, health). */
  get held(): number {
    return this.used;
  }

  /** The bytes `session` may still take now. */
  room(session: string): number {
    return Math.max(0, Math.min(this.max - this.used, this.perSession - (this.sessions.get(session) ?? 0)));
  }

  /**
   * Takes `bytes` for an answer of `session` (free when at most `freePerAnswer`). Throws the 503
   * `mock-busy` problem, naming `what()`, when they cannot fit: nothing is taken.
   */
  take(session: string, bytes: number, what: () => string): AnswerHold {
    // The hot path: a small answer costs no hold of its own and no listener.
    if (bytes <= this.freePerAnswer) return FREE;
    if (bytes > this.room(session)) throw this.exhausted(session, bytes, what());
    return this.hold(session, bytes);
  }

  /** Takes up to `bytes` for an answer of `session`: what it has room for (possibly nothing). Never refuses. */
  reserve(session: string, bytes: number): AnswerHold {
    return this.hold(session, Math.min(bytes, this.room(session)));
  }

  /** The 503 of an answer of `bytes` that `session` has no room for. */
  exhausted(session: string, bytes: number, what: string): ProblemError {
    const mine = this.sessions.get(session) ?? 0;
    const whose =
      mine + bytes > this.perSession
        ? `the session "${session}" holds ${mine} bytes of answers its clients have not read yet (slow readers or dripping faults), and one session holds at most half of --max-answer-bytes-in-flight (${this.perSession} bytes)`
        : `the mock holds ${this.used} bytes of answers its clients have not read yet, and --max-answer-bytes-in-flight is ${this.max}`;
    return problem(
      'busy',
      `${what} (${bytes} bytes) cannot be answered now: ${whose}. Retry shortly (read or close the slow answers), or raise the option.`,
      undefined,
      { 'Retry-After': '1' },
    );
  }

  private charge(session: string, bytes: number): void {
    this.used += bytes;
    const now = (this.sessions.get(session) ?? 0) + bytes;
    if (now > 0) this.sessions.set(session, now);
    else this.sessions.delete(session);
  }

  private hold(session: string, initial: number): AnswerHold {
    let charged = 0;
    let closed = false;
    const set = (bytes: number): void => {
      const target = closed ? 0 : bytes;
      this.charge(session, target - charged);
      charged = target;
    };
    set(initial);
    const free = this.freePerAnswer;
    const hold: AnswerHold = {
      get bytes() {
        return charged;
      },
      resize: (bytes) => set(bytes <= free ? 0 : bytes),
      fit: (bytes) => {
        if (bytes <= free) {
          set(0);
          return true;
        }
        if (bytes > charged && bytes - charged > this.room(session)) return false;
        set(bytes);
        return true;
      },
      release: (bytes) => set(Math.max(0, charged - bytes)),
      until(res) {
        if (res.closed) {
          closed = true;
          set(0);
        } else
          res.once('close', () => {
            set(0);
            closed = true;
          });
        return hold;
      },
    };
    return hold;
  }
}
