/**
 * One journal line: a JSON object (the entry) whose last member is `"crc32"`, the CRC-32 (node:zlib) of
 * the entry's JSON as written without that member, as 8 lowercase hex digits:
 *
 *     {"op":"create","session":"default",...,"crc32":"1a2b3c4d"}
 *
 * The line stays JSON (readable with `jq`); a line changed in place no longer matches its checksum.
 * Lines without the member (written by a mock before checksums, or by hand) decode as `unchecked`; the
 * journal decides whether to accept them. A damaged line is salvaged best-effort (the session, resource
 * and scalar record members it still shows), so its ids can be reserved and never handed out again.
 */
import { crc32 } from 'node:zlib';
import { isObject, type JsonObject, type JsonValue } from '../contract/document.js';

/**
 * The members of each kind of entry besides `op`, `session` and `at`. A new kind of entry is one
 * member here with its shape in `SHAPES`, and one method of the `EntryReplayers` that replay it (the
 * compiler asks for both).
 */
interface EntryFields {
  create: { resource: string; record: JsonObject };
  reset: Record<never, never>;
  /**
   * A session's counters (`lot-transfers#id` → the last value handed out), written by a rewritten
   * journal (journal.ts) before the session's records: the ids of records a reset dropped are never
   * handed out again.
   */
  counters: { counters: Record<string, number> };
  /** A record changed (a merge patch, a replace, an action): the whole record as answered since. */
  update: { resource: string; key: string; record: JsonObject };
  /** A record deleted. */
  delete: { resource: string; key: string };
}

export type EntryKind = keyof EntryFields;
/** The entry of one kind. */
export type EntryOf<K extends EntryKind> = { op: K; session: string; at?: string } & EntryFields[K];
export type JournalEntry = { [K in EntryKind]: EntryOf<K> }[EntryKind];

/** Where a replayed entry stands in its journal. */
export interface EntryLine {
  /** 1-based line number. */
  line: number;
  /** The line as it is in the file, without its newline (valid during the call only: copy it to keep it). */
  text: Buffer;
  /** The line lies in the journal's vouched prefix (`Journal.vouch`, under the same stamp): it was checked before. */
  trusted: boolean;
  /** A create's record as the line has it, JSON text (set for a vouched create read by `decodeCreateLine`). */
  recordJson?: string;
}

/** What replay does with each kind of entry: one method per kind. */
export type EntryReplayers = { [K in EntryKind]: (entry: EntryOf<K>, at: EntryLine) => void };

/** Hands an entry to the replayer of its kind. */
export function replayEntry<K extends EntryKind>(replayers: EntryReplayers, entry: EntryOf<K>, at: EntryLine): void {
  replayers[entry.op](entry, at);
}

export type DecodedLine =
  | { kind: 'blank' }
  | { kind: 'entry'; entry: JournalEntry; checked: boolean }
  | { kind: 'damaged'; reason: string; salvage?: JournalEntry; create: boolean };

const SUFFIX_HEAD = Buffer.from(',"crc32":"');
/** `,"crc32":"` + 8 hex digits + `"}`. */
const SUFFIX_LENGTH = SUFFIX_HEAD.length + 8 + 2;
const CLOSE = Buffer.from('}');
const HEX = /^[0-9a-f]{8}$/;

function isCounters(value: unknown): boolean {
  return isObject(value) && Object.values(value).every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0);
}

/** The shape of each kind of entry beyond `op` and `session` (a line of another shape is damage). */
const SHAPES: { [K in EntryKind]: (value: JsonObject) => boolean } = {
  create: (value) => typeof value['resource'] === 'string' && isObject(value['record']),
  reset: () => true,
  counters: (value) => isCounters(value['counters']),
  update: (value) => typeof value['resource'] === 'string' && typeof value['key'] === 'string' && isObject(value['record']),
  delete: (value) => typeof value['resource'] === 'string' && typeof value['key'] === 'string',
};

function isKind(op: JsonValue | undefined): op is EntryKind {
  return typeof op === 'string' && Object.hasOwn(SHAPES, op);
}

function isEntry(value: unknown): value is JournalEntry {
  if (!isObject(value) || typeof value['session'] !== 'string') return false;
  const op = value['op'];
  return isKind(op) && SHAPES[op](value);
}

function checksum(json: Buffer | string): string {
  return crc32(json).toString(16).padStart(8, '0');
}

/** The line (with its newline) that journals `entry`. */
export function encodeLine(entry: JournalEntry): string {
  return checkedLine(JSON.stringify(entry));
}

function checkedLine(json: string): string {
  return `${json.slice(0, -1)},"crc32":"${checksum(json)}"}\n`;
}

/**
 * The line of a create whose record is already JSON text (as the memory store keeps it, byte for byte
 * `JSON.stringify`'s): the same line as `encodeLine`, without parsing and serializing the record again.
 */
export function encodeCreateLine(session: string, resource: string, recordJson: string): string {
  return checkedLine(`${createStart(session, resource)}${recordJson}}`);
}

/** A create's line up to its record: `{"op":"create","session":…,"resource":…,"record":`. */
function createStart(session: string, resource: string): string {
  return `{"op":"create","session":${JSON.stringify(session)},"resource":${JSON.stringify(resource)},"record":`;
}

/** The line of a change whose record is already JSON text (as `encodeCreateLine`). */
export function encodeUpdateLine(session: string, resource: string, key: string, recordJson: string): string {
  return checkedLine(
    `{"op":"update","session":${JSON.stringify(session)},"resource":${JSON.stringify(resource)},"key":${JSON.stringify(key)},"record":${recordJson}}`,
  );
}

/**
 * The line of a create whose stored text is not a JSON object (found in Redis, set aside): the record
 * empty, the text kept whole as a string in `unreadable`.
 */
export function encodeUnreadableCreateLine(session: string, resource: string, text: string): string {
  return checkedLine(`${createStart(session, resource)}{},"unreadable":${JSON.stringify(text)}}`);
}

function parse(text: string, strip = true): JournalEntry | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (!isEntry(value)) return undefined;
    if (strip) Reflect.deleteProperty(value, 'crc32');
    return value;
  } catch {
    return undefined;
  }
}

const SESSION = /"session":"([A-Za-z0-9._-]{1,64})"/;
const RESOURCE = /"resource":"([A-Za-z0-9._-]{1,100})"/;
const MEMBER = /"([A-Za-z0-9_]{1,64})":(-?\d{1,15}(?![\d.eE])|"[^"\\]{0,200}")/g;
const LEGACY_MEMBERS = new Set(['op', 'session', 'resource', 'record', 'at']);
const ENVELOPE = new Set(['op', 'session', 'resource', 'at', 'crc32']);

/**
 * What a damaged line still shows: the entry when it still parses, else a create with the session,
 * resource and scalar members that can be read (enough to reserve its ids), else nothing.
 */
function salvage(text: string): JournalEntry | undefined {
  const parsed = parse(text);
  if (parsed) return parsed;
  const session = SESSION.exec(text)?.[1];
  const resource = RESOURCE.exec(text)?.[1];
  if (session === undefined || resource === undefined || !text.includes('"op":"create"')) return undefined;
  const record: JsonObject = {};
  for (const [, name = '', value = ''] of text.matchAll(MEMBER)) {
    if (ENVELOPE.has(name) || Object.hasOwn(record, name)) continue;
    record[name] = value.startsWith('"') ? value.slice(1, -1) : Number(value);
  }
  return { op: 'create', session, resource, record };
}

function damaged(reason: string, text: string, written: boolean): DecodedLine {
  const salvaged = salvage(text);
  const create = salvaged?.op === 'create' || written || text.includes('"op":"create"');
  return { kind: 'damaged', reason, create, ...(salvaged ? { salvage: salvaged } : {}) };
}

/**
 * The 8 hex digits of the line's checksum member when the line (without its newline) ends with one
 * (`,"crc32":"…"}` from `head` on, `head` = line length − `SUFFIX_LENGTH`); else undefined.
 */
function checksumHex(line: Buffer, head: number): string | undefined {
  if (head <= 0 || line.compare(SUFFIX_HEAD, 0, SUFFIX_HEAD.length, head, head + SUFFIX_HEAD.length) !== 0) return undefined;
  if (line[line.length - 2] !== 0x22 || line[line.length - 1] !== 0x7d) return undefined;
  const hex = line.toString('latin1', head + SUFFIX_HEAD.length, head + SUFFIX_HEAD.length + 8);
  return HEX.test(hex) ? hex : undefined;
}

/** The line's checksum (`hex`, after the entry's JSON up to `head`) is the CRC-32 of that JSON without it. */
function checksumMatches(line: Buffer, head: number, hex: string): boolean {
  return crc32(CLOSE, crc32(line.subarray(0, head))) === Number.parseInt(hex, 16);
}

/** The start of a create's line as `encodeCreateLine` writes it, up to its record, for one session and resource (`createPrefix`). */
export interface CreatePrefix {
  session: string;
  resource: string;
  bytes: Buffer;
}

export function createPrefix(session: string, resource: string): CreatePrefix {
  return { session, resource, bytes: Buffer.from(createStart(session, resource)) };
}

/**
 * A create's line (without its newline) laid out as `encodeCreateLine` writes it, starting with
 * `prefix`: its entry and its record's JSON text, read without decoding and parsing the envelope and
 * without serializing the record again (a journal's bulk at start). Undefined for any other line,
 * also a damaged one: `decodeLine` then reads it (and tells the damage). The text is the record's as
 * written: `JSON.stringify`'s for every line a mock wrote, so this is for vouched lines (`EntryLine.trusted`).
 */
export function decodeCreateLine(
  line: Buffer,
  prefix: CreatePrefix,
  verify = true,
): { entry: EntryOf<'create'>; recordJson: string } | undefined {
  const start = prefix.bytes.length;
  const head = line.length - SUFFIX_LENGTH;
  if (head <= start || line[start] !== 0x7b || line[head - 1] !== 0x7d) return undefined;
  if (line.compare(prefix.bytes, 0, start, 0, start) !== 0) return undefined;
  const hex = checksumHex(line, head);
  if (hex === undefined || (verify && !checksumMatches(line, head, hex))) return undefined;
  const recordJson = line.toString('utf8', start, head);
  let record: unknown;
  try {
    // Members after the record (`"unreadable"`) leave text that is not one JSON value: not this layout.
    record = JSON.parse(recordJson);
  } catch {
    return undefined;
  }
  if (!isObject(record)) return undefined;
  return { entry: { op: 'create', session: prefix.session, resource: prefix.resource, record }, recordJson };
}

/** Decodes one line (without its newline). */
export function decodeLine(line: Buffer): DecodedLine {
  const text = line.toString('utf8');
  if (text.trim() === '') return { kind: 'blank' };
  const head = line.length - SUFFIX_LENGTH;
  const hex = checksumHex(line, head);
  if (hex === undefined) {
    const entry = parse(text, false);
    if (!entry) return damaged('invalid line', text, false);
    // An unchecked entry has only the members of the format before checksums: a checksum member that
    // no longer reads as one (changed in place) is damage, not an old line.
    const unknown = Object.keys(entry).find((name) => !LEGACY_MEMBERS.has(name));
    if (unknown !== undefined) return damaged(`unexpected member "${unknown}" (the line was changed after it was written?)`, text, true);
    return { kind: 'entry', entry, checked: false };
  }
  if (!checksumMatches(line, head, hex)) {
    return damaged('checksum mismatch (the line was changed after it was written)', text, true);
  }
  const entry = parse(text);
  return entry ? { kind: 'entry', entry, checked: true } : damaged('invalid entry (checksum matches)', text, true);
}
