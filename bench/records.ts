/**
 * Memory per recorded record, and replay of a journal: records `count` lot transfers into a mock with
 * `--state-file`, compares its memory after a full GC before and after, then restarts it from the
 * journal and times spawn → first answer, against an empty start.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isObject } from '../contract/json-value.js';
import { send } from '../support/http-probe.js';
import type { Child } from '../support/processes.js';
import { parseJsonText } from '../util/json.js';
import { runLoad, wrongOf } from './load.js';
import type { Scenario } from './scenarios.js';
import { memoryAfterGc, serverChild, startAndTime } from './servers.js';

/** Transfers to record after `warmup` (JIT, buffers) recorded before the baseline, and a time cap on each. */
export type RecordsPlan = { count: number; warmup: number; connections: number; capMs: number };

/**
 * `recorded` transfers answered 201 in `seconds` (`perSec`), `totalRecorded` with the warm-up (what the
 * journal holds), `wrong` answers or errors; RSS and V8 heap growth per record after a full GC, bytes. Replay:
 * spawn → first answer of a mock with an empty journal and of one replaying it, ms, its RSS growth per
 * record, and the id a create gets then (above every replayed one when the journal was replayed).
 */
export type RecordsResult = Awaited<ReturnType<typeof measureRecords>>;

/** Runs the measurement; `transfer` is the create-lot-transfer scenario and `probe` the GET one. */
export async function measureRecords(transfer: Scenario, probe: Scenario, plan: RecordsPlan) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-records-'));
  const stateFile = join(dir, 'state.journal');
  /** Starts a mock child with `extra`, times it to its first answer, runs `use` on it, stops it. */
  const withMock = async <T>(name: string, extra: string[], use: (child: Child, url: string) => Promise<T>) => {
    const started = await startAndTime(name, (port) => serverChild(['mock', '--port', String(port), ...extra]), probe, true);
    try {
      return { ms: started.ms, value: await use(started.child, started.url) };
    } finally {
      await started.child.stop();
    }
  };
  try {
    const load = { connections: plan.connections, capMs: plan.capMs };
    const recording = await withMock('mock (recording)', ['--state-file', stateFile], async (child, url) => {
      const warm = await runLoad(url, transfer, { ...load, amount: plan.warmup });
      const baseline = await memoryAfterGc(child);
      const run = await runLoad(url, transfer, { ...load, amount: plan.count });
      return { warm, baseline, run, after: await memoryAfterGc(child) };
    });
    const { warm, baseline, run, after } = recording.value;
    const totalRecorded = warm.ok + run.ok;
    const empty = await withMock('mock (empty start)', [], (child) => memoryAfterGc(child));
    const replayed = await withMock('mock (replay)', ['--state-file', stateFile], async (child, url) => {
      const memory = await memoryAfterGc(child);
      const created = await send(`${url}${transfer.path}`, transfer);
      const body = parseJsonText(created.body);
      const id = created.status === transfer.expectStatus && body.ok && isObject(body.value) ? body.value['id'] : undefined;
      return { memory, nextId: typeof id === 'number' ? id : null };
    });
    const { memory, nextId } = replayed.value;
    const perRecord = (grown: number, records: number): number => (records > 0 ? grown / records : Number.NaN);
    return {
      recorded: run.ok,
      seconds: run.seconds,
      perSec: run.okPerSec,
      totalRecorded,
      wrong: wrongOf(warm) + wrongOf(run),
      journalBytes: statSync(stateFile, { throwIfNoEntry: false })?.size ?? 0,
      baseline,
      after,
      rssBytesPerRecord: perRecord(after.rss - baseline.rss, run.ok),
      heapBytesPerRecord: perRecord(after.heapUsed - baseline.heapUsed, run.ok),
      replay: {
        emptyStartMs: empty.ms,
        emptyMemory: empty.value,
        replayStartMs: replayed.ms,
        replayMemory: memory,
        rssBytesPerRecord: perRecord(memory.rss - empty.value.rss, totalRecorded),
        nextId,
        recordsReplayed: nextId !== null && nextId > totalRecorded,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
