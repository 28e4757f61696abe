/** The bench's command-line options, parsed into typed settings (no process.argv here: the CLI passes them). */
import { resolve } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import { numberValue, parseArgv } from '../util/argv.js';
import type { BenchSettings } from './report.js';
import { SERVER_IDS } from './servers.js';

const LOAD = { connections: 50, durationMs: 2000, warmupMs: 500, rounds: 7, transfers: 100_000, startupRuns: 3 };
const PHASES = { servers: [...SERVER_IDS], conformance: true, selfTest: true, verdictLatenciesMs: [0, 100, 1000] };
export const DEFAULT_SETTINGS: BenchSettings = { ...LOAD, ...PHASES };
/** `--quick`: one short round per server and scenario, fewer records and start-ups; the self-test stays. */
const QUICK_LOAD = { durationMs: 1000, warmupMs: 300, rounds: 1, transfers: 20_000, startupRuns: 1 };
export const QUICK_SETTINGS: BenchSettings = { ...DEFAULT_SETTINGS, ...QUICK_LOAD, verdictLatenciesMs: [0, 100] };
const d = DEFAULT_SETTINGS;
export const HELP = `Usage: npm run bench -- [options]

Loads the mock, Prism, a bare node:http server, and in front of it the validating proxy and the floor
(a minimal undici reverse proxy) on loopback and prints req/s, latency, memory and a regression line;
also times start-up, a strict conformance run (and counts its requests), memory per record and journal
replay, and runs the suite's self-test for its kill rate.

  --quick               a smaller run (1 round of 1 s per server and scenario, 20,000 records, 1 start-up each)
  --duration SECONDS    length of each measured round (default ${d.durationMs / 1000})
  --warmup SECONDS      unmeasured load on a server right before each of its rounds (default ${d.warmupMs / 1000})
  --rounds N            measured rounds per scenario and server (default ${d.rounds})
  --connections N       concurrent connections (default ${d.connections})
  --transfers N         transfers to record for the memory/replay measurement (default ${d.transfers}; 0 skips)
  --startup-runs N      start-up measurements per server (default ${d.startupRuns}; 0 skips)
  --servers LIST        which servers to load, comma-separated (default ${SERVER_IDS.join(',')})
  --no-conformance      skip the conformance timings (the run against the mock, the time-to-verdict table)
  --verdict-latencies MS,...  latencies of the time-to-verdict table: strict runs against the mock behind a
                        proxy delaying every answer, at --concurrency 1, the default and 16 (default
                        ${d.verdictLatenciesMs.join(',')}; --quick ${QUICK_SETTINGS.verdictLatenciesMs.join(',')}; none skips it)
  --no-self-test        skip the suite's self-test (kill rate)
  --output FILE         the JSON report (default reports/bench.json)
  --help                this text
`;

const [STRING, FLAG] = [{ type: 'string' }, { type: 'boolean', default: false }] as const;
const NUMBERS = { duration: STRING, warmup: STRING, rounds: STRING, connections: STRING, transfers: STRING, 'startup-runs': STRING };
const FLAGS = { quick: FLAG, 'no-conformance': FLAG, 'no-self-test': FLAG, help: FLAG };
const OUTPUT = { ...STRING, default: 'reports/bench.json' };
const OPTIONS = { ...NUMBERS, ...FLAGS, servers: STRING, 'verdict-latencies': STRING, output: OUTPUT };

/** A bad option or value: the CLI prints it and exits 2. */
export class UsageError extends Error {}

/** A number option: `fallback` when absent; positive (or ≥ 0 with `allowZero`), whole unless `decimals`. */
function numberOption(name: string, text: string | undefined, fallback: number, { decimals = false, allowZero = false } = {}): number {
  if (text === undefined) return fallback;
  const n = numberValue(text, { decimals, min: allowZero ? 0 : decimals ? Number.MIN_VALUE : 1 });
  if (n !== undefined) return n;
  const kind = `${allowZero ? 'non-negative' : 'positive'} ${decimals ? 'number' : 'whole number'}`;
  throw new UsageError(`--${name} must be a ${kind}, not "${text}"`);
}

/** `--verdict-latencies`: whole milliseconds ≥ 0, comma-separated, or `none`. */
function latencies(text: string | undefined, fallback: number[]): number[] {
  if (text?.trim() === 'none') return [];
  const values = text?.split(',').map((part) => numberValue(part.trim())) ?? fallback;
  if (values.every((v) => v !== undefined)) return [...values];
  throw new UsageError(`--verdict-latencies takes whole milliseconds, comma-separated (or none), not "${text}"`);
}

/** Parses the command line into settings and the output path. */
export function parseBenchArgs(argv: string[]): { settings: BenchSettings; output: string; help: boolean } {
  const { values: v } = parseArgv({ args: argv, strict: true, allowPositionals: false, options: OPTIONS }, (s) => new UsageError(s));
  const base = v.quick ? QUICK_SETTINGS : DEFAULT_SETTINGS;
  const names = v.servers?.split(',').map((s) => s.trim());
  const unknown = names?.filter((n) => !SERVER_IDS.some((id) => id === n)) ?? [];
  if (names?.length === 0 || unknown.length > 0)
    throw new UsageError(`--servers takes a comma-separated list of ${SERVER_IDS.join(', ')}; unknown: ${unknown.join(', ')}`);
  const settings: BenchSettings = {
    durationMs: numberOption('duration', v.duration, base.durationMs / 1000, { decimals: true }) * 1000,
    warmupMs: numberOption('warmup', v.warmup, base.warmupMs / 1000, { decimals: true, allowZero: true }) * 1000,
    rounds: numberOption('rounds', v.rounds, base.rounds),
    connections: numberOption('connections', v.connections, base.connections),
    transfers: numberOption('transfers', v.transfers, base.transfers, { allowZero: true }),
    startupRuns: numberOption('startup-runs', v['startup-runs'], base.startupRuns, { allowZero: true }),
    servers: names ? SERVER_IDS.filter((id) => names.includes(id)) : base.servers,
    conformance: !v['no-conformance'],
    selfTest: !v['no-self-test'],
    verdictLatenciesMs: latencies(v['verdict-latencies'], base.verdictLatenciesMs),
  };
  return { settings, output: resolve(PROJECT_ROOT, v.output), help: v.help };
}
