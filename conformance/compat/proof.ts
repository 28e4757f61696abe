/**
 * `--prove`: the static verdict checked by running both versions, in-process and on loopback only.
 * - clients: the mock started on the NEW contract, the OLD contract's suite run against it, only the
 *   checks of what a v1 client relies on (its valid requests are answered as v1 says: statuses, shapes,
 *   echoes, defaults, read-only members); the checks of how a server refuses requests v1 does not
 *   allow are left out, for no v1 client sends those.
 * - servers: the mock started on the OLD contract (a server written for v1), the NEW contract's whole
 *   suite run against it: does a v1 server pass the new gate?
 * Each failed check is attributed to the changes it points at (`attribute.ts`); a failure that no
 * change breaking that side explains is a disagreement, reported, never hidden.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { OpenApiDocument } from '../../contract/document.js';
import { messageOf } from '../../util/errors.js';
import type { Level } from '../../contract/levels.js';
import { PROFILE, SPEC } from '../../judgments/rules.js';
import { checksFor } from '../checks/index.js';
import type { Check } from '../checks/types.js';
import { resolveConformanceConfig } from '../config.js';
import { runConformance } from '../run.js';
import { createRedactor, sanitizeText, type Redactor } from '../secrets.js';
import { StartError } from '../start-error.js';
import { attributeFailure, disagreementsOf, withProofStatus } from './attribute.js';
import { counted, type Change, type Proof, type ProofRun, type Side } from './model.js';

/** One contract of the comparison: its document and the file it was read from (the mock serves the file). */
export interface ComparedContract {
  document: OpenApiDocument;
  path: string;
}

export interface ProofOptions {
  /** The level of the suites (`strict`: the specification and the profile). */
  level: Level;
  seed: number;
  /** Fixture orders both mocks serve (default: the bundled ones). */
  fixturesDir?: string;
  /** Time limit of each request of the suites. */
  timeoutMs?: number;
}

/**
 * The rules of how a server answers a request the contract does not allow (credentials missing or
 * refused, a body breaking the schema, an unknown lot, order or path, a wrong method or media type, a
 * body too large, the error body's shape, no 5xx to any of them). A v1 client sends none of those
 * requests, so the clients' run leaves these checks out.
 */
const REFUSAL_RULES: ReadonlySet<string> = new Set([
  SPEC.auth,
  SPEC.invalidRequest,
  PROFILE.unauthorized,
  PROFILE.schema,
  PROFILE.malformed,
  PROFILE.mediaType,
  PROFILE.tooLarge,
  PROFILE.unknownLot,
  PROFILE.unknownOrder,
  PROFILE.unknownPath,
  PROFILE.wrongMethod,
  PROFILE.problem,
  PROFILE.noServerError,
]);

/** The checks of what a client relies on: every check but those of refused requests. */
export function clientChecks(checks: readonly Check[]): Check[] {
  return checks.filter((check) => !REFUSAL_RULES.has(check.rule));
}

const QUESTIONS: Record<Side, string> = {
  clients:
    "the old contract's suite against the mock of the new contract (the checks of what a v1 client relies on): do v1 clients' requests still work, and do the answers still satisfy v1?",
  servers: "the new contract's suite against the mock of the old contract: does a server written for v1 pass the new gate?",
};

/** The first line of a failure, credentials hidden. */
function firstLine(text: string | undefined, redactor: Redactor): string {
  return sanitizeText((text ?? '').split('\n')[0] ?? '', redactor).slice(0, 300);
}

async function oneRun(
  side: Side,
  suite: ComparedContract,
  mockContract: ComparedContract,
  changes: readonly Change[],
  options: ProofOptions,
): Promise<ProofRun> {
  const token = `compat-${randomBytes(9).toString('base64url')}`;
  const redactor = createRedactor([token]);
  const base: ProofRun = {
    side,
    suite: side === 'clients' ? 'old' : 'new',
    mock: side === 'clients' ? 'new' : 'old',
    question: QUESTIONS[side],
    checks: 0,
    requests: 0,
    durationMs: 0,
    failures: [],
  };
  const { createMockServer } = await import('../../mock/index.js');
  let mock: { url: string; orderNumbers: string[]; close(): Promise<void> };
  try {
    mock = await createMockServer({
      host: '127.0.0.1',
      port: 0,
      quiet: true,
      tokens: [token],
      rejectTokens: ['invalid'],
      contractPath: resolve(mockContract.path),
      ...(options.fixturesDir !== undefined ? { fixturesDir: resolve(options.fixturesDir) } : {}),
    });
  } catch (error) {
    return {
      ...base,
      error: `the mock did not start on the ${base.mock} contract ${mockContract.path}: ${firstLine(messageOf(error), redactor)}; the proof needs the mock to serve both contracts (pass --fixtures DIR with orders valid under both), or leave --prove out`,
    };
  }
  const started = Date.now();
  try {
    const all = checksFor(suite.document);
    const checks = side === 'clients' ? clientChecks(all) : [...all];
    const config = resolveConformanceConfig({
      baseUrl: mock.url.replace(/\/+$/, ''),
      token,
      orderNumber: mock.orderNumbers[0],
      level: options.level,
      seed: options.seed,
      timeoutMs: options.timeoutMs,
      reporters: ['console'],
    });
    const result = await runConformance(config, { write: () => undefined, checks, document: suite.document });
    const inScope = counted(changes, options.level);
    const failures = result.verdict.checks
      .filter((check) => check.status === 'failed')
      .map((check) => attributeFailure(side, check, inScope, firstLine(check.failure?.actual ?? check.message, redactor)));
    // The mock accepts the run's token in every scheme its contract names, so a refused token is never the
    // run's configuration: it is the contracts' difference (one suite sends the credential where the other
    // contract's mock does not look), and the failed checks say so. Any other configuration problem stands.
    const configuration = result.verdict.configuration;
    const outcome = configuration?.option === '--token' ? undefined : configuration;
    return {
      ...base,
      exitCode: result.exitCode,
      checks: result.verdict.counts.total,
      // The count the verdict holds: `result.requests` decodes every body sent (megabytes a run) to count them.
      requests: result.verdict.requests ?? result.requests.length,
      durationMs: Date.now() - started,
      failures,
      ...(outcome
        ? { error: `the ${base.suite} contract's suite could not judge the mock: ${firstLine(outcome.reason, redactor)}; ${outcome.fix}` }
        : {}),
    };
  } catch (error) {
    const reason = error instanceof StartError ? `${error.reason}; ${error.fix}` : messageOf(error);
    return { ...base, durationMs: Date.now() - started, error: `the ${side} run could not be made: ${firstLine(reason, redactor)}` };
  } finally {
    await mock.close();
  }
}

/** Runs both proofs, one after the other, and gives each change its proof status. */
export async function prove(
  old: ComparedContract,
  next: ComparedContract,
  changes: readonly Change[],
  options: ProofOptions,
): Promise<{ proof: Proof; changes: Change[] }> {
  const runs = [await oneRun('clients', old, next, changes, options), await oneRun('servers', next, old, changes, options)];
  const inLevel = new Set(counted(changes, options.level));
  return {
    proof: { level: options.level, seed: options.seed, runs, disagreements: disagreementsOf(runs) },
    changes: withProofStatus(changes, runs, (c) => inLevel.has(c)),
  };
}
