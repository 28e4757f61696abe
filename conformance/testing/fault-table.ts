/**
 * The hand-written fault table run against the reference server (what `conformance/faults.test.ts`
 * and the long seed check `conformance/seed-table.check.ts` share): each distinct run (faults, level,
 * seed) is made once, in process, and answers check id → status.
 */
import { readContract } from '../../contract/document.js';
import { eachConcurrently } from '../../util/concurrently.js';
import type { Level } from '../../contract/levels.js';
import { CHECKS } from '../checks/index.js';
import type { CheckResult } from '../../report/results.js';
import { runConformance } from '../run.js';
import { FAULT_CASES } from '../self-test/faults.js';
import { referenceRunConfig, startReferenceServer } from '../self-test/reference-server.js';

const document = readContract();

/** The seeds the table is run under. */
export const SEEDS = [7, 1234, 987654] as const;

/** Five seeds: the correct server's cases and the per-lot counter's verdict are compared under each. */
export const FIVE_SEEDS = [...SEEDS, 42, 2_026_112] as const;

/** Runs already made (faults, level, seed → the checks' results). */
const runs = new Map<string, Promise<CheckResult[]>>();

/** The checks' results of a run against the reference server with `faults` (each distinct run made once). */
export function results(faults: readonly string[], level: Level, seed: number): Promise<CheckResult[]> {
  const key = `${faults.join(',')}|${level}|${seed}`;
  let run = runs.get(key);
  if (!run) {
    run = freshResults(faults, level, seed);
    runs.set(key, run);
  }
  return run;
}

/** Check id → status of a run against the reference server with `faults` (each distinct run made once). */
export async function verdicts(faults: readonly string[], level: Level, seed: number): Promise<Map<string, string>> {
  return new Map((await results(faults, level, seed)).map((c) => [c.id, c.status]));
}

async function freshResults(faults: readonly string[], level: Level, seed: number): Promise<CheckResult[]> {
  const server = await startReferenceServer(faults);
  try {
    const config = referenceRunConfig(server.url, level, seed, 'reports/test');
    const { verdict } = await runConformance(config, { write: () => undefined, document });
    return verdict.checks;
  } finally {
    await server.close();
  }
}

/** The ids of the checks that failed, sorted. */
export const failing = (map: Map<string, string>): string[] =>
  [...map]
    .filter(([, status]) => status === 'failed')
    .map(([id]) => id)
    .sort();

/** A verdict map as one line, for comparing runs. */
export const vector = (map: Map<string, string>): string => [...map].map(([id, s]) => `${id}=${s}`).join(' ');

/** The table's runs: the correct server (strict) and each fault at its check's level. */
export const RUNS: { name: string; faults: string[]; level: Level }[] = [
  { name: 'no fault', faults: [], level: 'strict' },
  ...FAULT_CASES.map((f) => ({
    name: f.faults.join(', '),
    faults: f.faults,
    level: CHECKS.find((c) => c.id === f.check)?.level ?? 'strict',
  })),
];

/** Verdict vectors of every run of the table under a seed, two runs at a time. */
export async function table(seed: number): Promise<string[]> {
  const out: string[] = new Array<string>(RUNS.length);
  await eachConcurrently(RUNS, 2, async (run, index) => {
    out[index] = `${run.name} @${run.level}: ${vector(await verdicts(run.faults, run.level, seed))}`;
  });
  return out;
}
