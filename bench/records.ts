/**
 * Memory per record and journal replay: `count` lot transfers into a mock with `--state-file` after `warmup`
 * ones, its memory after a full GC before and after; then spawn → first answer replaying it, against an empty start.
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
import { memoryAfterGc, serverChild, startAndTime, withServer } from './servers.js';

/** Bytes per record, start-up ms; `totalRecorded` with the warm-up; `nextId`: a create's id after the replay (above every replayed one). */
export type RecordsResult = Awaited<ReturnType<typeof measureRecords>>;
export type RecordsPlan = { count: number; warmup: number; connections: number; capMs: number };

export async function measureRecords(transfer: Scenario, probe: Scenario, plan: RecordsPlan) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-records-'));
  const stateFile = join(dir, 'state.journal');
  const started = (name: string, extra: string[]) => () =>
    startAndTime(name, (port) => serverChild(['mock', '--port', String(port), ...extra]), probe, true);
  const withMock = <T>(name: string, extra: string[], use: (child: Child, url: string) => Promise<T>) =>
    withServer(started(name, extra), async ({ ms, child, url }) => ({ ms, value: await use(child, url) }));
  const load = { connections: plan.connections, capMs: plan.capMs };
  try {
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
    const journalBytes = statSync(stateFile, { throwIfNoEntry: false })?.size ?? 0;
    const wrong = wrongOf(warm) + wrongOf(run);
    const recorded = { recorded: run.ok, seconds: run.seconds, perSec: run.okPerSec, totalRecorded, wrong, journalBytes, baseline, after };
    const rssBytesPerRecord = perRecord(after.rss - baseline.rss, run.ok);
    const heapBytesPerRecord = perRecord(after.heapUsed - baseline.heapUsed, run.ok);
    const replay = { emptyStartMs: empty.ms, emptyMemory: empty.value, replayStartMs: replayed.ms, replayMemory: memory };
    const replayGrowth = { rssBytesPerRecord: perRecord(memory.rss - empty.value.rss, totalRecorded), nextId };
    const recordsReplayed = nextId !== null && nextId > totalRecorded;
    return { ...recorded, rssBytesPerRecord, heapBytesPerRecord, replay: { ...replay, ...replayGrowth, recordsReplayed } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
