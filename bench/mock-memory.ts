/** Asking a mock child (started with an IPC channel and `--expose-gc`) for its memory after a full GC. */
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
export function memoryAfterGc(child: Child, timeoutMs = 10000): Promise<MemoryReport> {
  const proc = child.process;
  if (!proc.connected) return Promise.reject(new Error(`${child.name} has no IPC channel`));
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown): void => {
      if (!isMemoryReport(message)) return;
      clearTimeout(timer);
      proc.off('message', onMessage);
      resolve(message);
    };
    const timer = setTimeout(() => {
      proc.off('message', onMessage);
      reject(new Error(`${child.name} did not report its memory within ${timeoutMs} ms`));
    }, timeoutMs);
    proc.on('message', onMessage);
    proc.send({ type: 'memory' });
  });
}
