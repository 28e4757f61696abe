/** Asking a mock child (started with an IPC channel and `--expose-gc`) for its memory after a full GC. */
import { on } from 'node:events';
import type { Child } from '../support/processes.js';

/** What the mock child answers to `{ type: 'memory' }`. */
export interface MemoryReport {
  type: 'memory';
  /** True when a full GC ran before the numbers were taken. */
  collected: boolean;
  rss: number;
  heapUsed: number;
  external: number;
}

function isMemoryReport(value: unknown): value is MemoryReport {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return v.type === 'memory' && typeof v.rss === 'number' && typeof v.heapUsed === 'number';
}

/** The child's memory after a full GC; rejects after `timeoutMs` or when the child has no IPC channel. */
export async function memoryAfterGc(child: Child, timeoutMs = 10000): Promise<MemoryReport> {
  const proc = child.process;
  if (!proc.connected) throw new Error(`${child.name} has no IPC channel`);
  const signal = AbortSignal.timeout(timeoutMs);
  const messages = on(proc, 'message', { signal });
  proc.send({ type: 'memory' });
  try {
    for await (const [message] of messages) if (isMemoryReport(message)) return message;
  } catch (error) {
    if (!signal.aborted) throw error;
  }
  throw new Error(`${child.name} did not report its memory within ${timeoutMs} ms`);
}
