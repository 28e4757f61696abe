/**
 * Child-process entry of the mock for the bench: starts it through its public API
 * (`createMockServer`) in its normal configuration with logging off, prints its URL on stdout.
 * `--port N` (default 0: a free port), `--state-file PATH` (turns on the journal) and `--store URL` (Redis). With an IPC channel it answers `{ type: 'memory' }` with
 * its memory after a full GC (when started with `--expose-gc`). Stops on SIGTERM/SIGINT or when the
 * parent goes away.
 */
import { parseArgs } from 'node:util';
import { wholeNumber } from '../util/argv.js';
import { createMockServer } from '../mock/index.js';
import type { MemoryReport } from './mock-memory.js';
import { BENCH_TOKEN } from './scenarios.js';
import { stopOnSignals } from './child-stop.js';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '0' }, 'state-file': { type: 'string' }, store: { type: 'string' } },
  strict: true,
});
const port = wholeNumber(values.port, 0, 65535);
if (port === undefined) {
  process.stderr.write(`--port must be an integer from 0 to 65535, not "${values.port}"\n`);
  process.exit(2);
}

// The bench measures throughput and memory per record, not the limits: records and bytes are not capped here.
// Only the bench's token is accepted (as a server would), so the strict conformance run against it can pass:
// the suite sends tokens derived from its own that must be refused.
const server = await createMockServer({
  host: '127.0.0.1',
  port,
  tokens: [BENCH_TOKEN],
  quiet: true,
  ...(values['state-file'] !== undefined ? { stateFile: values['state-file'] } : {}),
  ...(values.store !== undefined ? { store: values.store } : {}),
  maxRecordsPerSession: Number.MAX_SAFE_INTEGER,
  maxRecordedBytes: Number.MAX_SAFE_INTEGER,
});
process.stdout.write(`${server.url.replace(/\/$/, '')}\n`);

process.on('message', (message: unknown) => {
  if (typeof message !== 'object' || message === null || (message as { type?: unknown }).type !== 'memory') return;
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  const report: MemoryReport = {
    type: 'memory',
    collected: gc !== undefined,
    rss: usage.rss,
    heapUsed: usage.heapUsed,
    external: usage.external,
  };
  process.send?.(report);
});

stopOnSignals(() => server.close());
