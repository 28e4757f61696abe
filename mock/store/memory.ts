/**
 * The embedded store: the state in this process, and with `--state-file` the durable JSONL journal
 * (`../journal.ts`): every create and reset is on disk (group commit, fdatasync) before it is
 * answered, a write that fails answers 503 and records nothing, and the journal is replayed on start
 * (ids and sequences continue past everything replayed, so no id is ever handed out twice). The store
 * gives the journal its snapshot (per session its counters, then its records), from which a journal
 * deleted or replaced while the mock runs is written afresh, and a long one compacted at start.
 * Each replayed record is checked against the contract in force (`options.check`): one it refuses, or
 * one whose key another record of its session already has, is never served; start-up is refused
 * naming each, unless `options.setAside` names a file they are moved to (`refused-records.ts`).
 */
import type { JsonObject, JsonValue } from '../../contract/document.js';
import type { FieldError } from '../../contract/schemas.js';
import { DEFAULT_MAX_LINE_BYTES, openJournal, type DamagedLine, type Journal } from '../journal.js';
import { checkedFile } from '../journal-files.js';
import { encodeCreateLine, encodeLine, replayEntry, type EntryLine, type EntryOf, type EntryReplayers } from '../journal-line.js';
import { problem } from '../problems.js';
import type { RecordCheck } from '../record-check.js';
import { mockFull, sessionFull, tooManySessions } from './limit-problems.js';
import { fixedText, jsonText, keyText, memberKey, slotRecordValue, slotValue } from './plan.js';
import { duplicateKey } from './record-problems.js';
import { RefusalReport, SetAsideFile, type RefusedRecord } from './refused-records.js';
import {
  DEFAULT_SESSION,
  isSlot,
  type ListPage,
  type ReplaceOutcome,
  type StoredResource,
  type RecordPlan,
  type Store,
  type StoreHealth,
  type StoreLimits,
} from './types.js';
import { messageOf } from '../../util/errors.js';
import { childPointer } from '../../util/json-pointer.js';

/**
 * A record's JSON longer than this many bytes is held as a Buffer, outside the V8 heap. V8 lets its heap
 * grow to about twice what is live before collecting it, so 128 MiB of large records held as strings
 * let a burst of large bodies leave hundreds of MiB of garbage uncollected (measured: 495-541 MiB peak
 * for 1,000 refused 1 MiB creates against a full mock, 334-359 MiB with large records off the heap).
 * Small records stay strings: a Buffer costs about 100 bytes more each, too much for a million of them.
 */
const OFF_HEAP_ABOVE = 4096;

/**
 * One resource's records in a session, in creation order: each one's place (`seqs`, ascending: its id
 * for a resource the store numbers, else a per-resource count), its key, its JSON (a string, or a
 * Buffer when long: see `OFF_HEAP_ABOVE`; leaf objects the garbage collector never traces, answered as
 * they are), and their bytes. Keys the client chose are found through `index` (key → place).
 */
interface Recorded {
  seqs: number[];
  keys: string[];
  data: (string | Buffer)[];
  /** UTF-8 bytes of all `data`. */
  bytes: number;
  index?: Map<string, number>;
}

interface Session {
  records: Map<string, Recorded>;
  counters: Map<string, number>;
  /** Records and bytes, created or being created. */
  count: number;
  bytes: number;
}

export interface MemoryStoreOptions {
  limits: StoreLimits;
  /** The resources recorded: their counter slots (raised on replay) and key member. */
  resources: Map<string, StoredResource>;
  stateFile?: string;
  /** Request bodies are at most this long: a journal line far longer than that is damage. */
  bodyLimitBytes?: number;
  /** A journal at least this long is compacted at start when that would drop a quarter of it (default 16 MiB). */
  compactAboveBytes?: number;
  /** How often the journal's path is checked for deletion or replacement while no write comes (ms; default 1000). */
  watchMs?: number;
  /**
   * Checks each replayed record against the contract in force; a record it refuses is never served.
   * Without it (a bare store), a record of an unknown resource is skipped with a log line.
   */
  check?: RecordCheck;
  /**
   * What `check` stands for (the contract's fingerprint, `recordStamp`): the journal remembers what was
   * checked under it (`<file>.checked`), and those records are not checked again at the next start.
   */
  stamp?: string;
  /** `--set-aside-invalid FILE`: refused records are moved there and the store opens; without it they refuse the start. */
  setAside?: string;
  log: (line: string) => void;
}

/** A replayed record that is not served: why, and its line as it stands in the journal. */
interface Refusal {
  record: RefusedRecord;
  line: number;
  /** The journal line with its newline. */
  text: Buffer;
}

const NEWLINE = Buffer.from('\n');

/** The index of the first id above `after` in an ascending list. */
function firstAbove(ids: number[], after: number): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((ids[mid] ?? 0) <= after) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** A journal at least this long is compacted at start when that drops at least a quarter of it. */
export const DEFAULT_COMPACT_ABOVE_BYTES = 16 * 1024 * 1024;

export class MemoryStore implements Store {
  readonly kind: StoreHealth['kind'];
  private readonly sessions = new Map<string, Session>();
  private totalBytes = 0;
  private journal: Journal | undefined;
  /** Keys the client chose whose create is being written to the journal (session, resource, key). */
  private readonly pendingKeys = new Set<string>();
  /** Records whose change or delete is being written to the journal: a second one waits its turn. */
  private readonly changing = new Map<string, Promise<unknown>>();
  /**
   * Replay: the records not served, per session. A replayed reset of the session drops its own (they
   * were never to be served again, and their ids stay reserved); the rest are settled after replay.
   */
  private readonly refused = new Map<string, Refusal[]>();
  /** Replay: refused records a later reset of their session cleared. */
  private refusedThenReset = 0;
  /** After replay: the refused records not (yet) in the side file. */
  private unsettled: Refusal[] = [];
  /** Replay: records checked against the contract, and records a journal vouched for under the same contract (not checked again). */
  private replayChecked = 0;
  private replayTrusted = 0;

  private constructor(private readonly options: MemoryStoreOptions) {
    this.kind = options.stateFile !== undefined ? 'journal' : 'memory';
    this.sessions.set(DEFAULT_SESSION, MemoryStore.fresh());
  }

  /** Opens the store, replaying the journal when there is one. Throws an Error naming the file. */
  static async open(options: MemoryStoreOptions): Promise<MemoryStore> {
    const store = new MemoryStore(options);
    const stateFile = options.stateFile;
    if (stateFile !== undefined) {
      // One replayer per kind of entry (journal-line.ts).
      const replayers: EntryReplayers = {
        create: (entry, at) => store.replayCreate(stateFile, entry, at),
        reset: (entry) => store.replayReset(entry.session),
        counters: (entry) => store.raiseCounters(store.session(entry.session), entry.counters),
        update: (entry, at) => store.replayUpdate(stateFile, entry, at),
        delete: (entry) => store.replayDelete(entry),
      };
      const opened = await openJournal(stateFile, options.log, (entry, at) => replayEntry(replayers, entry, at), {
        // A record is at most a few times its request body: a longer line is damage.
        maxLineBytes: Math.max(DEFAULT_MAX_LINE_BYTES, 4 * (options.bodyLimitBytes ?? 0)),
        onDamaged: (damaged) => store.reserveDamaged(damaged),
        snapshot: () => store.snapshot(),
        ...(options.watchMs !== undefined ? { watchMs: options.watchMs } : {}),
        ...(options.check && options.stamp !== undefined ? { stamp: options.stamp } : {}),
      });
      store.journal = opened.journal;
      if (opened.replayed > 0) options.log(`state file ${stateFile}: ${opened.replayed} entries replayed`);
      try {
        await store.settleRefused(stateFile, opened.journal);
      } catch (error) {
        await opened.journal.close();
        throw error;
      }
      // Every record it holds was checked (or vouched for before): what the mock appends is its own.
      if (options.check) opened.journal.vouch();
      const compacted = store.compactedSize();
      if (opened.journal.size >= (options.compactAboveBytes ?? DEFAULT_COMPACT_ABOVE_BYTES) && compacted <= opened.journal.size * 0.75) {
        try {
          await opened.journal.compact(
            `${opened.journal.size} bytes, ${opened.replayed} entries, ${store.recordCount()} records held: resets and the records they dropped go`,
          );
        } catch (error) {
          // The journal as it was stays (a rewrite replaces it only once complete): serve on.
          options.log(`state file ${stateFile}: compaction failed (${messageOf(error)}); the journal is kept as it was`);
        }
      }
    }
    return store;
  }

  /** Records held, all sessions. */
  private recordCount(): number {
    let count = 0;
    for (const session of this.sessions.values()) for (const list of session.records.values()) count += list.seqs.length;
    return count;
  }

  /** About the bytes of a journal rewritten from the state held now (`snapshot`). */
  private compactedSize(): number {
    return this.totalBytes + this.recordCount() * 128 + this.sessions.size * 256;
  }

  /**
   * The journal lines of the state held now, for a rewrite (`journal.ts`): per session its counters
   * (ids dropped by resets are never handed out again), then its records as answered. Taken at once
   * (the lists are copied), so records added while the lines are written are not in it: they are in
   * the appends written after the rewrite.
   */
  private snapshot(): Iterable<string> {
    const sessions = [...this.sessions].map(([name, session]) => ({
      name,
      counters: Object.fromEntries(session.counters),
      lists: [...session.records].map(([resource, list]) => ({ resource, data: list.data.slice() })),
    }));
    // Refused records not yet set aside stay in any rewrite, as they stood: a rewrite never drops them.
    const unsettled = this.unsettled.map((refusal) => refusal.text.toString('utf8'));
    return (function* () {
      for (const { name, counters, lists } of sessions) {
        if (Object.keys(counters).length > 0) yield encodeLine({ op: 'counters', session: name, counters });
        for (const { resource, data } of lists) for (const json of data) yield encodeCreateLine(name, resource, json.toString());
      }
      yield* unsettled;
    })();
  }

  /** Raises counters to at least the given values (a replayed `counters` entry). */
  private raiseCounters(session: Session, counters: Record<string, number>): void {
    for (const [counter, value] of Object.entries(counters)) {
      if (value > (session.counters.get(counter) ?? 0)) session.counters.set(counter, value);
    }
  }

  private static fresh(): Session {
    return { records: new Map(), counters: new Map(), count: 0, bytes: 0 };
  }

  /** The session of a replayed entry (replay is never refused by a limit). */
  private session(name: string): Session {
    let session = this.sessions.get(name);
    if (session) return session;
    session = MemoryStore.fresh();
    this.sessions.set(name, session);
    return session;
  }

  private add(session: Session, resource: string, seq: number, key: string, text: string, bytes: number): void {
    const data = bytes > OFF_HEAP_ABOVE ? Buffer.from(text) : text;
    let list = session.records.get(resource);
    if (!list) {
      list = { seqs: [], keys: [], data: [], bytes: 0 };
      if (this.options.resources.get(resource)?.assigned === false) list.index = new Map();
      session.records.set(resource, list);
    }
    list.bytes += bytes;
    list.index?.set(key, seq);
    // Journal appends resolve in order, so records arrive in creation order; keep the list sorted anyway.
    if ((list.seqs[list.seqs.length - 1] ?? 0) < seq) {
      list.seqs.push(seq);
      list.keys.push(key);
      list.data.push(data);
      return;
    }
    const at = firstAbove(list.seqs, seq);
    list.seqs.splice(at, 0, seq);
    list.keys.splice(at, 0, key);
    list.data.splice(at, 0, data);
  }

  /** Where the record of `key` is in its list, or -1. */
  private static positionOf(list: Recorded, key: string): number {
    const seq = list.index !== undefined ? list.index.get(key) : /^[1-9]\d{0,15}$/.test(key) ? Number(key) : undefined;
    if (seq === undefined) return -1;
    const at = firstAbove(list.seqs, seq - 1);
    return list.seqs[at] === seq && list.keys[at] === key ? at : -1;
  }

  /** The place of a new record: its id when the store numbers the key, else the next count of the resource. */
  private nextSeq(session: Session, resource: string, id: number): number {
    if (this.options.resources.get(resource)?.assigned !== false) return id;
    const counter = `${resource}#`;
    const seq = (session.counters.get(counter) ?? 0) + 1;
    session.counters.set(counter, seq);
    return seq;
  }

  /** The key of a record: its id when the store numbers it, else its key member's value. */
  private keyOf(resource: string, record: JsonObject, id: number): string {
    const spec = this.options.resources.get(resource);
    return spec === undefined || spec.assigned ? String(id) : keyText(record[spec.key]);
  }

  private replayCreate(stateFile: string, { session: name, resource, record }: EntryOf<'create'>, at: EntryLine): void {
    // A record the journal vouched for under this contract was checked at an earlier start.
    if (at.trusted) this.replayTrusted++;
    else if (this.options.check) this.replayChecked++;
    const verdict = at.trusted ? undefined : this.options.check?.(resource, record);
    if (verdict && verdict.problems.length > 0) {
      this.refuse(name, resource, record, at, verdict.problems);
      return;
    }
    const spec = this.options.resources.get(resource);
    if (!spec) {
      this.options.log(`state file ${stateFile}: unknown resource "${resource}" skipped`);
      return;
    }
    const slots = spec.slots;
    const session = this.session(name);
    let id = 0;
    let key = '';
    for (const slot of slots) {
      const value = slotValue(slot, record[slot.name]);
      if (value > (session.counters.get(slot.counter) ?? 0)) session.counters.set(slot.counter, value);
      if (slot.kind === 'id' && id === 0) {
        id = value;
        key = slot.name;
      }
    }
    // Keys are unique per session and resource: a second record with the key could never be told apart.
    const recordKey = this.keyOf(resource, record, id);
    const list = session.records.get(resource);
    if (list && (spec.assigned ? id > 0 : true) && MemoryStore.positionOf(list, recordKey) >= 0) {
      const member = spec.assigned ? key : spec.key;
      this.refuse(name, resource, record, at, [
        {
          pointer: childPointer('', member),
          detail: `is ${recordKey}, which an earlier record of this session already has (keys are unique)`,
        },
      ]);
      return;
    }
    const data = at.recordJson ?? JSON.stringify(record);
    const bytes = Buffer.byteLength(data);
    session.count++;
    session.bytes += bytes;
    this.totalBytes += bytes;
    this.add(session, resource, this.nextSeq(session, resource, id), recordKey, data, bytes);
  }

  /** A replayed change: the record's new JSON, checked like a create (a change the contract refuses leaves the record unserved). */
  private replayUpdate(stateFile: string, { session: name, resource, key, record }: EntryOf<'update'>, at: EntryLine): void {
    const session = this.sessions.get(name);
    const list = session?.records.get(resource);
    const position = list !== undefined ? MemoryStore.positionOf(list, key) : -1;
    if (session === undefined || list === undefined || position < 0) {
      this.options.log(
        `state file ${stateFile}: line ${at.line}, a change of ${resource} "${key}" in session "${name}" names no record; skipped`,
      );
      return;
    }
    const verdict = at.trusted ? undefined : this.options.check?.(resource, record);
    if (verdict && verdict.problems.length > 0) {
      this.drop(session, list, position);
      this.refuse(name, resource, record, at, verdict.problems);
      return;
    }
    this.put(session, list, position, JSON.stringify(record));
  }

  private replayDelete({ session: name, resource, key }: EntryOf<'delete'>): void {
    const session = this.sessions.get(name);
    const list = session?.records.get(resource);
    const at = list !== undefined ? MemoryStore.positionOf(list, key) : -1;
    if (session !== undefined && list !== undefined && at >= 0) this.drop(session, list, at);
  }

  /** Sets the JSON of the record at `at`, keeping the byte counts. */
  private put(session: Session, list: Recorded, at: number, text: string): void {
    const old = list.data[at] ?? '';
    const before = typeof old === 'string' ? Buffer.byteLength(old) : old.length;
    const bytes = Buffer.byteLength(text);
    list.data[at] = bytes > OFF_HEAP_ABOVE ? Buffer.from(text) : text;
    list.bytes += bytes - before;
    session.bytes += bytes - before;
    this.totalBytes += bytes - before;
  }

  /** Removes the record at `at`. */
  private drop(session: Session, list: Recorded, at: number): void {
    const old = list.data[at] ?? '';
    const bytes = typeof old === 'string' ? Buffer.byteLength(old) : old.length;
    list.index?.delete(list.keys[at] ?? '');
    list.seqs.splice(at, 1);
    list.keys.splice(at, 1);
    list.data.splice(at, 1);
    list.bytes -= bytes;
    session.bytes -= bytes;
    session.count--;
    this.totalBytes -= bytes;
  }

  /**
   * A replayed record that is not served. Its ids are never handed out again: each counter is raised to
   * what the record shows, and an id it does not show as a usable number is reserved one past the
   * counter (it had one, unknown).
   */
  private refuse(name: string, resource: string, record: JsonObject, at: EntryLine, problems: FieldError[]): void {
    const session = this.session(name);
    for (const slot of this.options.resources.get(resource)?.slots ?? []) {
      const current = session.counters.get(slot.counter) ?? 0;
      const value = slotValue(slot, record[slot.name]);
      const next = value > 0 ? Math.max(current, value) : slot.kind === 'id' ? current + 1 : current;
      if (next > current) session.counters.set(slot.counter, next);
    }
    let refusals = this.refused.get(name);
    if (!refusals) {
      refusals = [];
      this.refused.set(name, refusals);
    }
    refusals.push({
      record: { where: `line ${at.line}`, session: name, resource, problems },
      line: at.line,
      text: Buffer.concat([at.text, NEWLINE]),
    });
  }

  private replayReset(name: string): void {
    this.clear(name);
    this.refusedThenReset += this.refused.get(name)?.length ?? 0;
    this.refused.delete(name);
  }

  /**
   * After replay: the records not served are named in the log, then either refuse the start (no
   * `setAside`) or are appended to the side file, synced, and dropped from the journal by a rewrite
   * from what the store holds. A rewrite that fails undoes the side file and refuses the start. Until
   * they are in the side file, every rewrite (a repair while the journal closes) keeps them.
   */
  private async settleRefused(stateFile: string, journal: Journal): Promise<void> {
    const origin = `state file ${stateFile}`;
    if (this.options.check && this.replayChecked + this.replayTrusted > 0) {
      this.options.log(
        `${origin}: ${this.replayChecked} records checked against the contract in force${this.replayTrusted > 0 ? `, ${this.replayTrusted} more were checked at an earlier start under the same contract (${checkedFile(stateFile)})` : ''}`,
      );
    }
    if (this.refusedThenReset > 0) {
      this.options.log(
        `${origin}: ${this.refusedThenReset} records the contract in force refuses were cleared by a later reset of their session (never served; their ids stay reserved)`,
      );
    }
    const refusals = [...this.refused.values()].flat().sort((a, b) => a.line - b.line);
    this.refused.clear();
    this.unsettled = refusals;
    if (refusals.length === 0) return;
    const report = new RefusalReport(origin, this.options.log);
    for (const refusal of refusals) report.add(refusal.record);
    if (this.options.setAside === undefined) throw report.refusal();
    const side = await SetAsideFile.open(this.options.setAside, stateFile);
    const before = side.size;
    try {
      try {
        await side.write(refusals.map((refusal) => refusal.text));
      } catch (error) {
        await side.cutBack(before).catch(() => undefined);
        throw error;
      }
      this.unsettled = [];
      try {
        await journal.compact(`${refusals.length} records the contract in force refuses moved to ${side.path}`);
      } catch (error) {
        this.unsettled = refusals;
        await side.cutBack(before);
        throw new Error(
          `${origin}: the records the contract in force refuses could not be dropped from it (${messageOf(error)}); nothing was set aside`,
          { cause: error },
        );
      }
    } finally {
      await side.close();
    }
    report.setAside(side.path);
  }

  /**
   * A damaged journal line that may have been a create: its ids and sequences are never handed out
   * again. Each counter moves one past its value (the line's id was at least that), then past what the
   * line still shows; in the line's session when it still names it, else conservatively in every
   * session replayed so far.
   */
  private reserveDamaged({ salvage, create }: DamagedLine): void {
    const reserve = (session: Session, resource: string, record: JsonObject): void => {
      for (const slot of this.options.resources.get(resource)?.slots ?? []) {
        const next = Math.max((session.counters.get(slot.counter) ?? 0) + 1, slotValue(slot, record[slot.name]));
        session.counters.set(slot.counter, next);
      }
    };
    if (salvage?.op === 'counters') {
      // What the line still shows, and one more each: its values may have been changed.
      const session = this.session(salvage.session);
      this.raiseCounters(session, salvage.counters);
      for (const [counter, value] of session.counters) session.counters.set(counter, value + 1);
    } else if (salvage?.op === 'create' && this.options.resources.has(salvage.resource)) {
      reserve(this.session(salvage.session), salvage.resource, salvage.record);
    } else if (create) {
      for (const session of this.sessions.values()) for (const resource of this.options.resources.keys()) reserve(session, resource, {});
    }
  }

  private clear(name: string): void {
    const session = this.sessions.get(name);
    if (!session) return;
    for (const list of session.records.values()) {
      session.bytes -= list.bytes;
      this.totalBytes -= list.bytes;
    }
    session.records.clear();
    session.count = 0;
  }

  create(name: string, plan: RecordPlan): string | Promise<string> {
    const limits = this.options.limits;
    // A new session is kept only once its first record is: a refused create changes nothing.
    let session = this.sessions.get(name);
    const isNew = session === undefined;
    if (session === undefined) {
      if (this.sessions.size - 1 >= limits.maxSessions) return Promise.reject(tooManySessions(limits));
      session = MemoryStore.fresh();
    }
    if (session.count >= limits.maxRecordsPerSession) return Promise.reject(sessionFull(limits, name));
    // The record's JSON in the contract's member order, the counters filled (as the Redis script
    // does); the record object itself only for the journal.
    const record: JsonObject | undefined = this.journal ? {} : undefined;
    const counters = session.counters;
    let id = 0;
    let raised: [string, number][] | undefined;
    let json = '{';
    const fields = plan.fields;
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i];
      if (field === undefined) continue;
      let value: JsonValue;
      let text: string;
      if (isSlot(field)) {
        const n = (counters.get(field.counter) ?? 0) + 1;
        if (field.kind === 'id' && id === 0) id = n;
        (raised ??= []).push([field.counter, n]);
        value = slotRecordValue(field, n);
        text = jsonText(value);
      } else {
        value = field.value;
        text = fixedText(field);
      }
      json += `${i === 0 ? '' : ','}${field.key ?? memberKey(field.name)}${text}`;
      if (record) record[field.name] = value;
    }
    json += '}';
    const bytes = Buffer.byteLength(json);
    if (this.totalBytes + bytes > limits.maxRecordedBytes) return Promise.reject(mockFull(limits));
    const key = plan.key ?? String(id);
    if (plan.key !== undefined) {
      const list = session.records.get(plan.resource);
      if (
        (list !== undefined && MemoryStore.positionOf(list, key) >= 0) ||
        this.pendingKeys.has(`${name}\u0000${plan.resource}\u0000${key}`)
      )
        return Promise.reject(duplicateKey(plan.resource, key, name));
    }
    if (isNew) this.sessions.set(name, session);
    if (raised) for (const [counter, value] of raised) counters.set(counter, value);
    const seq = this.nextSeq(session, plan.resource, id);
    session.count++;
    session.bytes += bytes;
    this.totalBytes += bytes;
    if (!this.journal) {
      this.add(session, plan.resource, seq, key, json, bytes);
      return json;
    }
    // A key the client chose is held while its create is written: a second create of it meanwhile is a duplicate.
    const pending = plan.key !== undefined ? `${name}\u0000${plan.resource}\u0000${key}` : undefined;
    if (pending !== undefined) this.pendingKeys.add(pending);
    return this.journal.append({ op: 'create', session: name, resource: plan.resource, record: record ?? {} }).then(
      () => {
        if (pending !== undefined) this.pendingKeys.delete(pending);
        this.add(session, plan.resource, seq, key, json, bytes);
        return json;
      },
      (error: unknown) => {
        // The counters stay raised (an id handed out once is never reused); the reservation goes.
        if (pending !== undefined) this.pendingKeys.delete(pending);
        session.count--;
        session.bytes -= bytes;
        this.totalBytes -= bytes;
        this.options.log(`state file write failed: ${messageOf(error)}`);
        throw problem('notDurable', 'The mock could not write its state file, so nothing was recorded; check the disk and retry.');
      },
    );
  }

  list(name: string, resource: string, page: { after: number; limit: number; maxBytes: number }): Promise<ListPage> {
    const list = this.sessions.get(name)?.records.get(resource);
    if (!list) return Promise.resolve({ records: [] });
    const start = firstAbove(list.seqs, page.after);
    const records: Buffer[] = [];
    let bytes = 0;
    let i = start;
    for (; i < list.seqs.length && records.length < page.limit; i++) {
      const held = list.data[i] ?? '';
      const data = typeof held === 'string' ? Buffer.from(held) : held;
      if (records.length > 0 && bytes + data.length > page.maxBytes) break;
      records.push(data);
      bytes += data.length;
    }
    const last = list.seqs[i - 1];
    return Promise.resolve(i < list.seqs.length && last !== undefined ? { records, nextAfter: last } : { records });
  }

  get(name: string, resource: string, key: string): Promise<string | undefined> {
    const list = this.sessions.get(name)?.records.get(resource);
    const at = list !== undefined ? MemoryStore.positionOf(list, key) : -1;
    const held = at >= 0 ? list?.data[at] : undefined;
    return Promise.resolve(held === undefined ? undefined : held.toString());
  }

  all(name: string, resource: string): Promise<string[]> {
    const list = this.sessions.get(name)?.records.get(resource);
    return Promise.resolve(list === undefined ? [] : list.data.map((held) => held.toString()));
  }

  /** Runs `change` after any change of the same record still being written (changes of one record apply in order). */
  private serialized<T>(id: string, change: () => Promise<T>): Promise<T> {
    const before = this.changing.get(id) ?? Promise.resolve();
    const run = before.then(change, change);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.changing.set(id, settled);
    void settled.then(() => {
      if (this.changing.get(id) === settled) this.changing.delete(id);
    });
    return run;
  }

  replace(name: string, resource: string, key: string, expected: string, next: string): Promise<ReplaceOutcome> {
    return this.serialized(`${name}\u0000${resource}\u0000${key}`, async () => {
      const session = this.sessions.get(name);
      const list = session?.records.get(resource);
      const at = list !== undefined ? MemoryStore.positionOf(list, key) : -1;
      if (session === undefined || list === undefined || at < 0) return 'missing';
      if ((list.data[at] ?? '').toString() !== expected) return 'changed';
      const grows = Buffer.byteLength(next) - Buffer.byteLength(expected);
      if (this.totalBytes + grows > this.options.limits.maxRecordedBytes) throw mockFull(this.options.limits);
      if (this.journal) {
        try {
          await this.journal.append({ op: 'update', session: name, resource, key, record: JSON.parse(next) as JsonObject });
        } catch (error) {
          this.options.log(`state file write failed: ${messageOf(error)}`);
          throw problem('notDurable', 'The mock could not write its state file, so nothing was changed; check the disk and retry.');
        }
      }
      const now = MemoryStore.positionOf(list, key);
      if (now < 0) return 'missing';
      this.put(session, list, now, next);
      return 'replaced';
    });
  }

  remove(name: string, resource: string, key: string): Promise<boolean> {
    return this.serialized(`${name}\u0000${resource}\u0000${key}`, async () => {
      const session = this.sessions.get(name);
      const list = session?.records.get(resource);
      if (session === undefined || list === undefined || MemoryStore.positionOf(list, key) < 0) return false;
      if (this.journal) {
        try {
          await this.journal.append({ op: 'delete', session: name, resource, key });
        } catch (error) {
          this.options.log(`state file write failed: ${messageOf(error)}`);
          throw problem('notDurable', 'The mock could not write its state file, so nothing was deleted; check the disk and retry.');
        }
      }
      const at = MemoryStore.positionOf(list, key);
      if (at < 0) return false;
      this.drop(session, list, at);
      return true;
    });
  }

  async reset(name: string): Promise<void> {
    if (this.journal) {
      try {
        await this.journal.append({ op: 'reset', session: name });
      } catch (error) {
        this.options.log(`state file write failed: ${messageOf(error)}`);
        throw problem('notDurable', 'The mock could not write its state file, so nothing was reset; check the disk and retry.');
      }
    }
    this.clear(name);
  }

  health(): Promise<StoreHealth> {
    const detail = this.journal ? `in memory, journaled to ${this.journal.path}` : 'in memory';
    return Promise.resolve({ kind: this.kind, up: true, detail });
  }

  async close(): Promise<void> {
    await this.journal?.close();
  }
}
