/**
 * argv of `goods-conformance compat OLD NEW [options]` → CompatConfig. Pure: the arguments are given,
 * nothing is read from the process. Every problem is a StartError naming the argument and the fix.
 */
import { parseArgv, wholeNumber } from '../../util/argv.js';
import { isLevel, type Level } from '../../contract/levels.js';
import { StartError } from '../start-error.js';
import { FAIL_ON, type FailOn } from './model.js';

export const COMPAT_REPORTERS = ['json', 'markdown'] as const;
export type CompatReporter = (typeof COMPAT_REPORTERS)[number];

export interface CompatConfig {
  /** The contract clients and servers were built against (v1), and the edited one. */
  oldPath: string;
  newPath: string;
  /** The side whose breaking changes make the exit code 1 (default clients). */
  failOn: FailOn;
  /** `strict` (default): every change counts; `spec`: only changes of specification facts. Also the proof's level. */
  level: Level;
  /** Run the proof (both mocks and both suites, loopback only). */
  prove: boolean;
  /** Seed of the proof runs' generated bodies. */
  seed: number;
  /** Fixture orders the proof's mocks serve (default: the bundled ones). */
  fixturesDir?: string;
  /** Time limit of each request of the proof runs. */
  timeoutMs: number;
  /** Report files besides the console: compat.json, compat.md. */
  reporters: CompatReporter[];
  outputDir: string;
}

export const COMPAT_DEFAULTS = { failOn: 'clients', level: 'strict', seed: 1, timeoutMs: 5000, outputDir: 'reports' } as const;

export const COMPAT_HELP = `Usage: goods-conformance compat OLD NEW [options]

Compares two contracts (OpenAPI 3.1, .yaml or .json): every change, per operation and member, is
breaking for existing clients (frontends built against OLD), breaking for existing servers (written
for OLD), or compatible; each with its JSON Pointer in both documents, its level (specification fact or
profile rule) and a one-line reason.

  --fail-on clients|servers|any  which breaking changes fail the run (default ${COMPAT_DEFAULTS.failOn})
  --level spec|strict            strict: every change counts (default); spec: only changes of the
                                 specification's facts (profile rules are listed, not counted); also the
                                 level of the proof's suites
  --prove                        prove the verdict by running both versions (loopback only): the OLD
                                 contract's suite (what a v1 client relies on) against the mock of NEW,
                                 and NEW's whole suite against the mock of OLD; a failure no breaking
                                 change explains is reported as a disagreement (and counts as breaking)
  --seed N                       seed of the proof runs' generated bodies (default ${COMPAT_DEFAULTS.seed})
  --fixtures DIR                 fixture orders both mocks serve (default: the bundled ones)
  --timeout MS                   time limit of each request of the proof runs (default ${COMPAT_DEFAULTS.timeoutMs})
  --reporter NAMES               json, markdown or json,markdown: also write compat.json / compat.md
                                 (the Markdown fits a pull request comment)
  --output DIR                   folder of the report files (default ${COMPAT_DEFAULTS.outputDir})
  -h, --help                     show this help

Exit status:
  0  compatible for what --fail-on names
  1  breaking for it (a breaking change, or a proof run contradicting a compatible verdict)
  2  could not compare: bad arguments, a contract that cannot be read or used, a proof that could not run`;

const OPTIONS = {
  'fail-on': { type: 'string' },
  level: { type: 'string' },
  prove: { type: 'boolean' },
  seed: { type: 'string' },
  fixtures: { type: 'string' },
  timeout: { type: 'string' },
  reporter: { type: 'string' },
  output: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Every option the parser accepts (COMPAT_HELP documents each one). */
export const COMPAT_OPTION_NAMES: readonly string[] = Object.keys(OPTIONS);

export type ParsedCompatArgs = { help: true } | { help: false; config: CompatConfig };

function isFailOn(value: string): value is FailOn {
  return (FAIL_ON as readonly string[]).includes(value);
}

function isReporter(value: string): value is CompatReporter {
  return (COMPAT_REPORTERS as readonly string[]).includes(value);
}

function whole(name: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  const value = wholeNumber(text.trim(), min);
  if (value === undefined)
    throw new StartError(`--${name} must be an integer ≥ ${min}, got "${text}"`, `pass e.g. --${name} ${Math.max(min, 1)}`);
  return value;
}

function nonEmpty(name: string, text: string | undefined): string | undefined {
  if (text !== undefined && text.trim() === '') throw new StartError(`--${name} is empty`, `pass a value: --${name} VALUE`);
  return text;
}

/** Reads the arguments after `compat`. */
export function parseCompatArgs(argv: readonly string[]): ParsedCompatArgs {
  const parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] } = parseArgv(
    { args: [...argv], options: OPTIONS, strict: true, allowPositionals: true },
    (sentence) => new StartError(`bad arguments: ${sentence}`, 'see goods-conformance compat --help'),
  );
  const { values, positionals } = parsed;
  if (values['help'] === true) return { help: true };
  const str = (name: string): string | undefined => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  if (positionals.length !== 2) {
    throw new StartError(
      `compat takes two contracts, OLD and NEW; got ${positionals.length === 0 ? 'none' : positionals.map((p) => `"${p}"`).join(', ')}`,
      'pass e.g. goods-conformance compat main/openapi.yaml contract/openapi.yaml',
    );
  }
  const [oldPath = '', newPath = ''] = positionals;
  for (const [name, path] of [
    ['OLD', oldPath],
    ['NEW', newPath],
  ] as const) {
    if (path.trim() === '') throw new StartError(`the ${name} contract path is empty`, `pass the path of the ${name} contract file`);
  }
  const failOn = str('fail-on') ?? COMPAT_DEFAULTS.failOn;
  if (!isFailOn(failOn)) {
    throw new StartError(`--fail-on must be clients, servers or any, got "${failOn}"`, 'pass e.g. --fail-on clients');
  }
  const level = str('level') ?? COMPAT_DEFAULTS.level;
  if (!isLevel(level)) throw new StartError(`--level must be spec or strict, got "${level}"`, 'pass --level spec or --level strict');
  const reporters: CompatReporter[] = [];
  for (const name of (nonEmpty('reporter', str('reporter')) ?? '').split(',').map((n) => n.trim())) {
    if (name === '') continue;
    if (!isReporter(name))
      throw new StartError(`--reporter must be json, markdown or json,markdown, got "${name}"`, 'pass e.g. --reporter markdown');
    if (!reporters.includes(name)) reporters.push(name);
  }
  const fixturesDir = nonEmpty('fixtures', str('fixtures'));
  return {
    help: false,
    config: {
      oldPath,
      newPath,
      failOn,
      level,
      prove: values['prove'] === true,
      seed: whole('seed', str('seed'), 0) ?? COMPAT_DEFAULTS.seed,
      ...(fixturesDir !== undefined ? { fixturesDir } : {}),
      timeoutMs: whole('timeout', str('timeout'), 1) ?? COMPAT_DEFAULTS.timeoutMs,
      reporters,
      outputDir: nonEmpty('output', str('output')) ?? COMPAT_DEFAULTS.outputDir,
    },
  };
}
