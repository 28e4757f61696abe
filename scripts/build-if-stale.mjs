#!/usr/bin/env node
/**
 * `npm start`'s prestart and `npm run conformance`'s preconformance: builds dist/ only when a compiled
 * source changed since the last build, so a restart with nothing changed starts at once (tsc, even
 * incremental, takes seconds on 2 cores).
 * Stale means: no stamp (dist/.build-stamp), or a `.ts` file the build compiles (SOURCE_DIRS;
 * not tests), a tsconfig or package.json newer than
 * the stamp.
 * `--stamp` only writes the stamp (after `npm run build`). Plain Node, no dependency: it runs before
 * anything is built.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.build-stamp');
/** The folders the build compiles: those tsconfig.json includes (the one list), but the tests' own `test/`. */
const SOURCE_DIRS = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')).include.filter((dir) => dir !== 'test');
const CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];

/** The newest modification time (ms) of the compiled sources under `dir`. */
function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') newest = Math.max(newest, newestSource(path));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) {
      newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

function writeStamp(time) {
  writeFileSync(stamp, `${new Date(time).toISOString()}\n`);
  utimesSync(stamp, time / 1000, time / 1000);
}

const startedAt = Date.now();
if (process.argv.includes('--stamp')) {
  writeStamp(startedAt);
  process.exit(0);
}
const newest = Math.max(
  ...SOURCE_DIRS.map((dir) => newestSource(join(root, dir))),
  ...CONFIG_FILES.map((file) => statSync(join(root, file)).mtimeMs),
);
if (existsSync(stamp) && statSync(stamp).mtimeMs >= newest && existsSync(join(root, 'dist', 'mock', 'cli.js'))) process.exit(0);
process.stderr.write('sources changed since the last build; building dist/ (tsc)...\n');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);
// The time the build started: a source saved during the build makes the next start build again.
writeStamp(startedAt);
