/**
 * The exclusive lock of a state file: `<file>.lock` next to it (next to the real file when the path is
 * a symbolic link), holding the pid of the mock that owns
 * the file. It is created atomically (the pid is written to a private temporary file that is then
 * hard-linked to the lock name: `link` fails when the lock exists, and a lock is never seen empty).
 * A lock whose pid no longer runs (the holder was killed with `kill -9`) is stale: it is reported,
 * removed and taken over. The lock is removed when the journal is closed.
 *
 * Limits: a pid reused by an unrelated process after a crash keeps the lock "held" (the message names
 * the lock file to delete); the lock is advisory and per machine (pids of another host or container
 * cannot be checked).
 */
import { link, readFile, realpath, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The state file is locked by a running mock. */
export class LockHeldError extends Error {}

export interface StateLock {
  path: string;
  release(): Promise<void>;
}

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** The lock files this process holds. */
const held = new Set<string>();

/**
 * Whether the holder runs (EPERM: it runs as another user). Our own pid holds it only if this process
 * took it: after a restart (a container's) the new mock may get the pid of the killed one.
 */
function running(pid: number, lockPath: string): boolean {
  if (pid === process.pid) return held.has(lockPath);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

async function holder(lockPath: string): Promise<string | undefined> {
  try {
    return (await readFile(lockPath, 'utf8')).trim();
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Takes the lock of `file`, or throws an Error naming the file and the holder's pid. A stale lock is
 * logged and taken over.
 */
/** The real path of a file, whatever symbolic link or folder link names it (of its folder when it does not exist). */
export async function realPathOf(file: string): Promise<string> {
  return realpath(file).catch(async () => join(await realpath(dirname(file)).catch(() => dirname(file)), basename(file)));
}

export async function lockStateFile(file: string, log: (line: string) => void): Promise<StateLock> {
  // One lock per file, whatever symbolic link or folder link names it.
  const lockPath = `${await realPathOf(file)}.lock`;
  const temporary = `${lockPath}.${process.pid}.${Date.now()}.tmp`;
  const mine = String(process.pid);
  await writeFile(temporary, `${mine}\n`, { flag: 'wx' });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await link(temporary, lockPath);
        held.add(lockPath);
        return {
          path: lockPath,
          async release() {
            if (!held.delete(lockPath)) return;
            if ((await holder(lockPath).catch(() => undefined)) === mine) await unlink(lockPath).catch(() => undefined);
          },
        };
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
      }
      const content = await holder(lockPath);
      if (content === undefined) continue; // released meanwhile: try again
      const pid = /^\d{1,10}$/.test(content) ? Number(content) : undefined;
      if (pid !== undefined && pid > 0 && running(pid, lockPath)) {
        throw new LockHeldError(
          `the state file ${file} is in use by another mock (pid ${pid}, lock file ${lockPath}); stop that mock or choose another --state-file (if no process ${pid} is a mock, delete ${lockPath})`,
        );
      }
      // Stale: its holder is gone. Remove it unless another mock took it over meanwhile.
      if ((await holder(lockPath)) === content) {
        await unlink(lockPath).catch((error: unknown) => {
          if (errorCode(error) !== 'ENOENT') throw error;
        });
        log(`state file ${file}: stale lock of pid ${content || '(none)'} (no longer running) removed`);
      }
    }
    throw new LockHeldError(`cannot take the lock ${lockPath} of the state file ${file}: other mocks keep taking it`);
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}
