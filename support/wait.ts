/** Polling (p-wait-for): wait until a condition holds or a server answers, instead of sleeping a fixed time and hoping. */
import pWaitFor from 'p-wait-for';
import { messageOf } from '../util/errors.js';
import { send, type ProbeRequest } from './http-probe.js';
import type { Child } from './processes.js';

/**
 * Resolves once `check()` answers true (a check that throws counts as false); rejects after
 * `timeoutMs` with `what` in the message.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  { what = 'the condition', timeoutMs = 10_000, intervalMs = 20 }: { what?: string; timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const holds = (): Promise<boolean> =>
    Promise.resolve()
      .then(check)
      .catch(() => false);
  await pWaitFor(holds, { interval: intervalMs, timeout: { milliseconds: timeoutMs, message: `${what}: not within ${timeoutMs} ms` } });
}

export interface HttpWait {
  /** The process that should answer: the wait fails at once, with its output, when it exits. */
  child?: Child;
  /** What to send (default: a GET). */
  request?: ProbeRequest;
  /** The status that counts as an answer (default: any). */
  expectStatus?: number;
  timeoutMs?: number;
  intervalMs?: number;
}

/** Resolves once `url` answers `request` (with `expectStatus`, when given); rejects after `timeoutMs` with the last attempt. */
export async function waitForHttp(
  url: string,
  { child, request = { method: 'GET', headers: {} }, expectStatus, timeoutMs = 30_000, intervalMs = 100 }: HttpWait = {},
): Promise<void> {
  let last = 'no answer yet';
  const answered = async (): Promise<boolean> => {
    if (child?.hasExited()) throw new Error(`${child.name} exited before answering on ${url}; its output:\n${child.output()}`);
    try {
      const answer = await send(url, request, 2_000);
      if (expectStatus === undefined || answer.status === expectStatus) return true;
      last = `status ${answer.status}: ${answer.body.slice(0, 200)}`;
    } catch (error) {
      last = messageOf(error);
    }
    return false;
  };
  const gaveUp = (): never => {
    throw new Error(
      `${child?.name ?? url} did not answer${expectStatus === undefined ? '' : ` ${expectStatus}`} on ${url} within ${timeoutMs} ms (last attempt: ${last})${child ? `; its output:\n${child.output()}` : ''}`,
    );
  };
  await pWaitFor(answered, { interval: intervalMs, timeout: { milliseconds: timeoutMs, fallback: gaveUp } });
}
