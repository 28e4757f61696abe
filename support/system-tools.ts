/**
 * The system tools the tests and the bench use (Chromium, redis-server, a python3 with junitparser,
 * ...), found where the prerequisite check finds them: `scripts/prerequisites.mjs --json`, the one
 * place that knows the list and how each is found (PATH decides), run once per process. So a test
 * uses the tool `npm test`'s first step checked, and a machine whose first python3 on PATH is a
 * pyenv or virtualenv one without junitparser still uses the python3 that has it.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';

/** The Debian/Ubuntu package names of scripts/prerequisites.json. */
export type SystemPackage = 'chromium' | 'redis-server' | 'python3-junitparser' | 'curl' | 'openssl' | 'git';

let found: Partial<Record<SystemPackage, string | null>> | undefined;

/** Where the tool of a system package is (its path), or undefined when the check does not find it. */
export function systemTool(name: SystemPackage): string | undefined {
  if (found === undefined) {
    const run = spawnSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'prerequisites.mjs'), '--json'], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`scripts/prerequisites.mjs --json failed (exit ${run.status}): ${run.stderr}`);
    found = JSON.parse(run.stdout) as Partial<Record<SystemPackage, string | null>>;
  }
  return found[name] ?? undefined;
}

/** The tool, or an error naming the install command (the prerequisite check, `npm test`'s first step, says the same). */
export function requireSystemTool(name: SystemPackage): string {
  const path = systemTool(name);
  if (path === undefined)
    throw new Error(
      `${name} is missing: run \`node scripts/prerequisites.mjs\` (npm test's first step), which installs it or names the command`,
    );
  return path;
}
