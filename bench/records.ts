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
import { memoryAfterGc, serverChild, startAndTime, type MemoryReport } from './servers.js';

export interface RecordsPlan {
  /** Transfers to record after `warmup` transfers (JIT, buffers) recorded before the baseline. */
  count: number;
  warmup: number;
  connections: number;
  /** Stops recording after this long (the bench stays bounded even if the journal is slow). */
  capMs: number;
}

export interface RecordsResult {
  /** Transfers answered 201 in the measured load, in how long, and in total with the warm-up (the journal holds these). */
  recorded: number;
  seconds: number;
  perSec: number;
  totalRecorded: number;
  /** Wrong answers, connection errors and timeouts. */
  wrong: number;
  journalBytes: number;
  baseline: MemoryReport;
  after: MemoryReport;
  /** RSS and V8 heap growth per measured record (after a full GC), bytes. */
  rssBytesPerRecord: number;
  heapBytesPerRecord: number;
  replay: {
    /** Spawn → first answer of a mock with an empty journal, and of one replaying the journal, ms. */
    emptyStartMs: number;
    emptyMemory: MemoryReport;
    replayStartMs: number;
    replayMemory: MemoryReport;
    /** (replayed RSS − empty RSS) / records, bytes. */
    rssBytesPerRecord: number;
    /** The id of a transfer created right after the replay: above every replayed one when the journal was replayed. */
    nextId: number | null;
    recordsReplayed: boolean;
  };
}

/** Runs the measurement; `transfer` is the create-lot-transfer scenario and `probe` the GET one. */
export async function measureRecords(transfer: Scenario, probe: Scenario, plan: RecordsPlan): Promise<RecordsResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-records-'));
  const stateFile = join(dir, 'state.journal');
  /** Starts a mock child with `extra`, times it to its first answer, runs `use` on it, stops it. */
  const withMock = async <T>(name: string, extra: string[], use: (child: Child, url: string) => Promise<T>) => {
    const started = await startAndTime(name, (port) => serverChild(['mock', '--port', String(port), ...extra]), probe, { ipc: true });
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
