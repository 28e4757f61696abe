/**
 * The files around a journal (`journal.ts`): its folder, the temporary files of a rewrite and what a
 * rewrite killed midway left behind (`settleRewrite`), and the small file-system steps every phase
 * shares (a write to the end, a folder sync, a name stamped with the time).
 */
import { mkdir, open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { codeOf } from '../util/errors.js';

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
