/**
 * The files around a journal (`journal.ts`): its folder, the temporary files of a rewrite and what a
 * rewrite killed midway left behind (`settleRewrite`), the record of how much of it was vouched for
 * (`<file>.checked`), and the small file-system steps every phase shares (a write to the end, a folder
 * sync, a name stamped with the time).
 */
import { mkdir, open, readFile, rename, stat, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { dirname } from 'node:path';
import { isObject } from '../contract/document.js';
import { codeOf } from '../util/errors.js';
import { parseJsonText } from '../util/json.js';

export function errorCode(error: unknown): string {
  return codeOf(error) ?? 'error';
}

/**
 * Creates a folder and its missing parents. (Not `mkdir(..., { recursive: true })`: under `/proc` it
 * loops for ever on Node 20.)
 */
export async function ensureFolder(dir: string, depth = 0): Promise<void> {
  try {
    await mkdir(dir);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EEXIST') return;
    if (code !== 'ENOENT' || depth >= 64 || dirname(dir) === dir) throw error;
    await ensureFolder(dirname(dir), depth + 1);
    await mkdir(dir).catch((again: unknown) => {
      if (errorCode(again) !== 'EEXIST') throw again;
    });
  }
}

/** Syncs a folder, so that a rename in it is durable. */
export async function syncFolder(dir: string): Promise<void> {
  const folder = await open(dir, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

/** A timestamp usable in a file name (`2026-11-22T10-11-12-345Z`). */
export function fileStamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

export async function writeAllTo(handle: FileHandle, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}

/**
 * The files of a rewrite next to the journal (`real` is the journal's real path): a compaction writes
 * `<file>.compact.tmp` and renames it onto the journal; a repair writes `<file>.rewrite.tmp`, renames it
 * to `<file>.rewrite` once complete and synced, then onto the journal.
 */
export function rewriteFiles(real: string): { compacting: string; repairing: string; repaired: string } {
  return { compacting: `${real}.compact.tmp`, repairing: `${real}.rewrite.tmp`, repaired: `${real}.rewrite` };
}

export async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/**
 * What a rewrite killed before it finished left behind (`kill -9`, a power cut), settled before the
 * journal is opened:
 * - a complete repair (`<file>.rewrite`) holds everything the mock had acknowledged: it is installed,
 *   whatever is at the path kept aside;
 * - an unfinished repair (`<file>.rewrite.tmp`) holds part of it, and the file at the path (if any)
 *   was deleted, replaced or damaged before: both are kept, the unfinished one aside, and the log says
 *   where;
 * - an unfinished compaction (`<file>.compact.tmp`) is removed: the journal it compacted is complete.
 */
export async function settleRewrite(path: string, real: string, log: (line: string) => void): Promise<void> {
  const { compacting, repairing, repaired } = rewriteFiles(real);
  if (await exists(repaired)) {
    if (await exists(real)) {
      const aside = `${real}.displaced-${fileStamp()}`;
      await rename(real, aside);
      log(`state file ${path}: the file at the path was kept as ${aside}`);
    }
    await rename(repaired, real);
    await syncFolder(dirname(real));
    log(`state file ${path}: a fresh journal that a stopped mock had finished writing (${repaired}) installed`);
  }
  if (await exists(repairing)) {
    const aside = `${real}.unfinished-${fileStamp()}`;
    await rename(repairing, aside);
    log(
      `state file ${path}: the mock was stopped while writing a fresh journal (its journal had been deleted or replaced); the part it wrote is kept as ${aside} (every line checked: replay it with --state-file ${aside}), ${(await exists(real)) ? 'the file at the path is used as it is' : 'no journal is at the path'}`,
    );
  }
  if (await exists(compacting)) {
    await unlink(compacting);
    log(`state file ${path}: an unfinished compaction of a stopped mock (${compacting}) removed; the journal it compacted is complete`);
  }
}

/**
 * What `<file>.checked` says: the journal's first `bytes` (CRC-32 `crc32`) were vouched for under `stamp`;
 * `clean`: every line in them was a valid entry (no damaged, torn or over-long line), so a line within
 * them needs no checksum check of its own once the bytes' CRC-32 matched (absent in older files: false).
 */
export interface CheckedPrefix {
  stamp: string;
  bytes: number;
  crc32: string;
  clean: boolean;
}

/** `<file>.checked`, next to the journal's real path. */
export function checkedFile(real: string): string {
  return `${real}.checked`;
}

/** The CRC-32 (8 hex digits) of the first `bytes` of a file, read a chunk at a time. */
export async function crcOfPrefix(handle: FileHandle, bytes: number): Promise<string> {
  const chunk = Buffer.alloc(Math.min(bytes, 1024 * 1024));
  let value = 0;
  let position = 0;
  while (position < bytes) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, bytes - position), position);
    if (bytesRead === 0) break;
    value = crc32(chunk.subarray(0, bytesRead), value);
    position += bytesRead;
  }
  return value.toString(16).padStart(8, '0');
}

/** The journal's first bytes vouched for, and whether they held only valid lines (`CheckedPrefix.clean`). */
export type Vouched = Pick<CheckedPrefix, 'bytes' | 'clean'>;

/** Nothing vouched for. */
const NONE: Vouched = { bytes: 0, clean: false };

/**
 * How many of the journal's first bytes were vouched for under `stamp`, and whether they were clean:
 * what `<file>.checked` says, when its stamp is `stamp` and those bytes are still exactly the ones
 * vouched for (their CRC-32); else none.
 */
export async function vouchedBytes(real: string, handle: FileHandle, stamp: string): Promise<Vouched> {
  const text = await readFile(checkedFile(real), 'utf8').catch(() => '');
  const said = parseJsonText(text);
  if (!said.ok || !isObject(said.value)) return NONE;
  const { stamp: was, bytes, crc32: sum, clean } = said.value;
  if (was !== stamp || typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes <= 0 || typeof sum !== 'string') return NONE;
  if ((await handle.stat()).size < bytes) return NONE;
  return (await crcOfPrefix(handle, bytes)) === sum ? { bytes, clean: clean === true } : NONE;
}

/** Writes `<file>.checked` (a temporary file renamed onto it: never half written). */
export async function writeChecked(real: string, prefix: CheckedPrefix): Promise<void> {
  const file = checkedFile(real);
  const temporary = `${file}.tmp`;
  await writeFile(temporary, `${JSON.stringify(prefix)}\n`);
  await rename(temporary, file);
}
