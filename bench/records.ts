/**
 * Memory per recorded record, and replay of a journal: records `count` lot transfers into a mock
 * with `--state-file` (fast, 50 connections), compares its memory after a full GC before and after,
 * then restarts it from the journal and times spawn → first answer, against an empty start.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { send } from './http-probe.js';
import { runLoad } from './load.js';
import { memoryAfterGc, type MemoryReport } from './mock-memory.js';
import { benchEntry } from './processes.js';
import type { Scenario } from './scenarios.js';
import { startAndTime } from './startup.js';

export interface RecordsPlan {
  /** Transfers to record (after the warm-up). */
  count: number;
  /** Transfers recorded first to warm the mock up (JIT, buffers) before the baseline. */
  warmup: number;
  connections: number;
  /** Stops recording after this long (the bench stays bounded even if the journal is slow). */
  capMs: number;
}

export interface RecordsResult {
  /** Transfers answered 201 in the measured load. */
  recorded: number;
  /** Transfers recorded in total (warm-up + measured); the journal holds these. */
  totalRecorded: number;
  unexpected: number;
  errors: number;
  seconds: number;
  /** Recorded transfers per second with the journal on. */
  perSec: number;
  journalBytes: number;
  baseline: MemoryReport;
  after: MemoryReport;
  /** RSS growth per measured record (after a full GC), bytes. */
  rssBytesPerRecord: number;
  /** V8 heap growth per measured record (after a full GC), bytes. */
  heapBytesPerRecord: number;
  replay: {
    /** Spawn → first answer of a mock with an empty journal, ms. */
    emptyStartMs: number;
    emptyMemory: MemoryReport;
    /** Spawn → first answer of a mock replaying the journal, ms. */
    replayStartMs: number;
    replayMemory: MemoryReport;
    /** (replayed RSS − empty RSS) / records, bytes. */
    rssBytesPerRecord: number;
    /** The id of a transfer created right after the replay (ids continue after the highest one). */
    nextId: number | null;
    /** True when that id is above every replayed one, i.e. the journal was replayed. */
    recordsReplayed: boolean;
  };
}

function answeredId(body: string): number | null {
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'number')
      return (value as { id: number }).id;
  } catch {
    // not JSON
  }
  return null;
}

/** Runs the measurement; `transfer` is the create-lot-transfer scenario and `probe` the GET one. */
export async function measureRecords(transfer: Scenario, probe: Scenario, plan: RecordsPlan): Promise<RecordsResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-records-'));
  const stateFile = join(dir, 'state.journal');
  const mockLine = (extra: string[]) => (port: number) =>
    benchEntry('mock-server-child', ['--port', String(port), ...extra], ['--expose-gc']);
  try {
    const recorder = await startAndTime('mock (recording)', mockLine(['--state-file', stateFile]), probe, { ipc: true });
    let warm: Awaited<ReturnType<typeof runLoad>>;
    let run: Awaited<ReturnType<typeof runLoad>>;
    let baseline: MemoryReport;
    let after: MemoryReport;
    try {
      warm = await runLoad(recorder.url, transfer, { connections: plan.connections, amount: plan.warmup, capMs: plan.capMs });
      baseline = await memoryAfterGc(recorder.child);
      run = await runLoad(recorder.url, transfer, { connections: plan.connections, amount: plan.count, capMs: plan.capMs });
      after = await memoryAfterGc(recorder.child);
    } finally {
      await recorder.child.stop();
    }
    const totalRecorded = warm.ok + run.ok;
    const journalBytes = statSync(stateFile, { throwIfNoEntry: false })?.size ?? 0;

    const empty = await startAndTime('mock (empty start)', mockLine([]), probe, { ipc: true });
    let emptyMemory: MemoryReport;
    try {
      emptyMemory = await memoryAfterGc(empty.child);
    } finally {
      await empty.child.stop();
    }

    const replayed = await startAndTime('mock (replay)', mockLine(['--state-file', stateFile]), probe, { ipc: true });
    let replayMemory: MemoryReport;
    let nextId: number | null;
    try {
      replayMemory = await memoryAfterGc(replayed.child);
      const created = await send(`${replayed.url}${transfer.path}`, transfer);
      nextId = created.status === transfer.expectStatus ? answeredId(created.body) : null;
    } finally {
      await replayed.child.stop();
    }

    const perRecord = (grown: number, records: number): number => (records > 0 ? grown / records : Number.NaN);
    return {
      recorded: run.ok,
      totalRecorded,
      unexpected: warm.unexpected + run.unexpected,
      errors: warm.errors + warm.timeouts + run.errors + run.timeouts,
      seconds: run.seconds,
      perSec: run.okPerSec,
      journalBytes,
      baseline,
      after,
      rssBytesPerRecord: perRecord(after.rss - baseline.rss, run.ok),
      heapBytesPerRecord: perRecord(after.heapUsed - baseline.heapUsed, run.ok),
      replay: {
        emptyStartMs: empty.ms,
        emptyMemory,
        replayStartMs: replayed.ms,
        replayMemory,
        rssBytesPerRecord: perRecord(replayMemory.rss - emptyMemory.rss, totalRecorded),
        nextId,
        recordsReplayed: nextId !== null && nextId > totalRecorded,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
