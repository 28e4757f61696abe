/** The problems a store answers at its limits: which limit, and how to raise it or make room. */
import { problem, type ProblemError } from '../problems.js';
import type { StoreLimits } from './types.js';

export function tooManySessions(limits: StoreLimits): ProblemError {
  return problem(
    'tooManySessions',
    `This mock keeps at most ${limits.maxSessions} sessions besides the default one; reuse an existing X-Mock-Session name, or raise --max-sessions.`,
  );
}

export function sessionFull(limits: StoreLimits, session: string): ProblemError {
  return problem(
    'sessionFull',
    `The session "${session}" holds ${limits.maxRecordsPerSession} records, the most this mock keeps in one session (--max-records-per-session); POST /__mock/reset with X-Mock-Reset: 1 and X-Mock-Session: ${session} clears it, or raise the option.`,
  );
}

export function mockFull(limits: StoreLimits): ProblemError {
  return problem(
    'mockFull',
    `This record would take the mock past ${limits.maxRecordedBytes} bytes of recorded JSON, all sessions together (--max-recorded-bytes); reset sessions you no longer need (POST /__mock/reset with X-Mock-Reset: 1) or raise the option.`,
  );
}
