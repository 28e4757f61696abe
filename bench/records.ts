/**
 * Memory per recorded record, and replay of a journal: records `count` lot transfers into a mock
 * with `--state-file` (fast, 50 connections), compares its memory after a full GC before and after,
 * then restarts it from the journal and times spawn → first answer, against an empty start.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseJsonText } from '../util/json.js';
import { send } from '../support/http-probe.js';
import type { Child } from '../support/processes.js';
import { runLoad } from './load.js';
import { memoryAfterGc, type MemoryReport } from './mock-memory.js';
import { mockCommand } from './processes.js';
import type { Scenario } from './scenarios.js';
import { startAndTime } from './servers.js';

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
  const parsed = parseJsonText(body);
  const id = parsed.ok && typeof parsed.value === 'object' && parsed.value !== null ? (parsed.value as { id?: unknown }).id : undefined;
  return typeof id === 'number' ? id : null;
}

/** Runs the measurement; `transfer` is the create-lot-transfer scenario and `probe` the GET one. */
export async function measureRecords(transfer: Scenario, probe: Scenario, plan: RecordsPlan): Promise<RecordsResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-records-'));
  const stateFile = join(dir, 'state.journal');
  /** Starts the mock child with `extra`, times it to its first answer, runs `use` on it, stops it. */
  const withMock = async <T>(
    name: string,
    extra: string[],
    use: (child: Child, url: string) => Promise<T>,
  ): Promise<{ ms: number; value: T }> => {
    const started = await startAndTime(name, (port) => mockCommand(['--port', String(port), ...extra]), probe, { ipc: true });
    try {
      return { ms: started.ms, value: await use(started.child, started.url) };
    } finally {
      await started.child.stop();
    }
  };
  try {
    const recording = await withMock('mock (recording)', ['--state-file', stateFile], async (child, url) => {
      const warm = await runLoad(url, transfer, { connections: plan.connections, amount: plan.warmup, capMs: plan.capMs });
      const baseline = await memoryAfterGc(child);
      const run = await runLoad(url, transfer, { connections: plan.connections, amount: plan.count, capMs: plan.capMs });
      return { warm, baseline, run, after: await memoryAfterGc(child) };
    });
    const { warm, baseline, run, after } = recording.value;
    const totalRecorded = warm.ok + run.ok;
    const journalBytes = statSync(stateFile, { throwIfNoEntry: false })?.size ?? 0;
    const empty = await withMock('mock (empty start)', [], (child) => memoryAfterGc(child));
    const replayed = await withMock('mock (replay)', ['--state-file', stateFile], async (child, url) => {
      const memory = await memoryAfterGc(child);
      const created = await send(`${url}${transfer.path}`, transfer);
      return { memory, nextId: created.status === transfer.expectStatus ? answeredId(created.body) : null };
    });
    const nextId = replayed.value.nextId;

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
        emptyMemory: empty.value,
        replayStartMs: replayed.ms,
        replayMemory: replayed.value.memory,
        rssBytesPerRecord: perRecord(replayed.value.memory.rss - empty.value.rss, totalRecorded),
        nextId,
        recordsReplayed: nextId !== null && nextId > totalRecorded,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
