/** Polling: wait until a condition holds, instead of sleeping a fixed time and hoping. */
import { setTimeout as sleep } from 'node:timers/promises';
import { messageOf } from '../contract/errors.js';
import type { Child } from './processes.js';

/**
 * Resolves once `check()` answers true (a check that throws counts as false); rejects after
 * `timeoutMs` with `what` in the message.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  { what = 'the condition', timeoutMs = 10_000, intervalMs = 20 }: { what?: string; timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return;
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

/**
 * Resolves once `url` answers a GET (any status). Rejects after `timeoutMs`, or at once when `child`
 * (the process that should answer) has exited, with its output.
 */
export async function waitForHttp(url: string, { child, timeoutMs = 30_000 }: { child?: Child; timeoutMs?: number } = {}): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last: string;
  for (;;) {
    if (child?.hasExited()) throw new Error(`${child.name} exited before answering on ${url}; its output:\n${child.output()}`);
    try {
      await (await fetch(url, { signal: AbortSignal.timeout(2_000) })).arrayBuffer();
      return;
    } catch (error) {
      last = messageOf(error);
    }
    if (Date.now() > end)
      throw new Error(
        `${child?.name ?? url} did not answer on ${url} within ${timeoutMs} ms (${last})${child ? `; its output:\n${child.output()}` : ''}`,
      );
    await sleep(100);
  }
}
