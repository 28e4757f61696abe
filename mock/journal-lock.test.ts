import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockStateFile } from './journal-lock.js';

/** The pid of a process that has exited (a holder killed long ago). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('state file lock (<file>.lock with the holder pid)', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'goods-mock-lock-'));
    file = join(dir, 'state.jsonl');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('holds the lock with its pid, refuses a second holder naming file and pid, and releases it', async () => {
    const lock = await lockStateFile(file, () => undefined);
    assert.equal(readFileSync(`${file}.lock`, 'utf8'), `${process.pid}\n`);
    await assert.rejects(
      lockStateFile(file, () => undefined),
      (error: Error) => {
        assert.ok(error.message.includes(file), error.message);
        assert.ok(error.message.includes(`pid ${process.pid}`), error.message);
        assert.ok(error.message.includes(`${file}.lock`), 'names the lock file to delete');
        return true;
      },
    );
    await lock.release();
    assert.equal(existsSync(`${file}.lock`), false);
    const again = await lockStateFile(file, () => undefined);
    await again.release();
    assert.deepEqual(spawnSync('ls', ['-A', dir], { encoding: 'utf8' }).stdout.trim(), '', 'no temporary files are left behind');
  });

  it('takes over a stale lock (its pid no longer runs, or it holds no pid) and reports it', async () => {
    for (const content of [`${deadPid()}\n`, '', 'garbage']) {
      writeFileSync(`${file}.lock`, content);
      const logged: string[] = [];
      const lock = await lockStateFile(file, (line) => logged.push(line));
      assert.equal(readFileSync(`${file}.lock`, 'utf8'), `${process.pid}\n`);
      assert.equal(logged.length, 1);
      assert.match(logged[0] ?? '', /stale lock/);
      assert.ok(logged[0]?.includes(file));
      await lock.release();
    }
  });

  it('does not release a lock another process took over meanwhile', async () => {
    const lock = await lockStateFile(file, () => undefined);
    writeFileSync(`${file}.lock`, '1\n');
    await lock.release();
    assert.equal(readFileSync(`${file}.lock`, 'utf8'), '1\n');
  });

  it('is one lock whatever symbolic link names the file or its folder', async () => {
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'linked'));
    const lock = await lockStateFile(join(dir, 'real', 'state.jsonl'), () => undefined);
    try {
      await assert.rejects(
        lockStateFile(join(dir, 'linked', 'state.jsonl'), () => undefined),
        /in use by another mock/,
      );
      writeFileSync(join(dir, 'real', 'state.jsonl'), '');
      symlinkSync(join(dir, 'real', 'state.jsonl'), join(dir, 'alias.jsonl'));
      await assert.rejects(
        lockStateFile(join(dir, 'alias.jsonl'), () => undefined),
        /in use by another mock/,
      );
    } finally {
      await lock.release();
    }
  });

  it('takes over a lock naming its own pid that it does not hold (a restarted container reuses pids)', async () => {
    writeFileSync(`${file}.lock`, `${process.pid}\n`);
    const logged: string[] = [];
    const lock = await lockStateFile(file, (line) => logged.push(line));
    assert.match(logged.join('\n'), new RegExp(`stale lock of pid ${process.pid}`));
    await assert.rejects(
      lockStateFile(file, () => undefined),
      /in use by another mock/,
      'but refuses a second open while it holds it',
    );
    await lock.release();
  });
});
