/**
 * `goods-conformance --self-test`: the suite measures its own power from the contract. The reference
 * server (the hand-written one where it can serve the contract, else the mock behind a fault front:
 * `referenceBase`) must pass at both levels; every generated fault (`generated-faults.ts`) must make
 * the suite fail at the fault's level. Each fault runs the checks of its operation (and the
 * whole-server ones) in their order and stops at the first that fails: a fault is killed when one does.
 */
import type { OpenApiDocument } from '../../contract/document.js';
import type { Level } from '../../contract/levels.js';
import { checksFor } from '../checks/index.js';
import type { Check } from '../checks/types.js';
import { CheckContext } from '../context.js';
import { checkSuitePeers } from '../peers.js';
import { checksOfLevel, prepareChecks, runCheck } from '../suite.js';
import { generatedFaults, referenceBase, type GeneratedFault, type ReferenceBase } from './generated-faults.js';
import { startMockBase } from './mock-reference.js';
import { referenceRunConfig, startReferenceServer, type ReferenceServer } from './reference-server.js';
import { judgeContexts } from '../../judgments/context.js';
import { eachConcurrently } from '../../util/concurrently.js';

export interface SelfTestOptions {
  /** Seed of the suite's generated bodies (the verdicts do not depend on it). */
  seed?: number;
  /** Fault servers run at once (default 4). */
  concurrency?: number;
  /** Only these faults (tests); default: every generated fault. */
  faults?: readonly GeneratedFault[];
}

export interface SelfTestResult {
  /** The reference server the faults were made on. */
  base: ReferenceBase;
  /** The reference server passed every check at each level. */
  reference: Record<Level, { passed: boolean; failed: string[] }>;
  total: number;
  killed: number;
  perOperation: { operation: string; total: number; killed: number }[];
  /** Faults the suite did not catch. */
  survivors: GeneratedFault[];
  /** Each killed fault (its `fault` text) and the check that failed first against it. */
  killedBy: Map<string, string>;
  durationMs: number;
}

interface Outcome {
  failed: string[];
  passed: boolean;
}

/** Runs `checks` against a reference server with `faults`; stops at the first failing check when `stopAtFailure`. */
async function runAgainst(
  start: (faults: readonly string[]) => Promise<ReferenceServer>,
  document: OpenApiDocument,
  faults: readonly string[],
  checks: readonly Check[],
  level: Level,
  seed: number,
  stopAtFailure: boolean,
  order: readonly Check[] = checks,
): Promise<Outcome> {
  const server = await start(faults);
  try {
    const config = referenceRunConfig(server.url, level, seed, 'reports');
    const ctx = new CheckContext({ config, baseUrl: server.url, document });
    ctx.planWrites(checks);
    await prepareChecks(checks, ctx);
    const failed: string[] = [];
    let passed = true;
    for (const check of order) {
      const result = await runCheck(check, ctx);
      if (result.status !== 'passed') passed = false;
      if (result.status === 'failed') {
        failed.push(check.id);
        if (stopAtFailure) break;
      }
    }
    await ctx.http.close();
    return { failed, passed };
  } finally {
    await server.close();
  }
}

/** The checks a fault is judged by: those of its operation at its level, then the whole-server ones. */
function checksForFault(all: readonly Check[], fault: GeneratedFault): Check[] {
  const ofLevel = checksOfLevel(all, fault.level);
  return [
    ...ofLevel.filter((c) => c.operations[0] === fault.operation),
    ...ofLevel.filter((c) => c.operations[0] === 'server' && fault.operation !== 'server'),
  ];
}

/**
 * The family of a generated fault: its kind, operation and keyword (`ignore|createX|/a|type` and
 * `ignore|createX|/b|type` are one family); a fault without a keyword is a family of its own.
 */
export function familyOf(fault: string): string {
  const [kind = '', operation = '', pointer, keyword] = fault.split('|');
  return pointer !== undefined && keyword !== undefined ? `${kind}|${operation}|${keyword}` : fault;
}

/**
 * The checks in the order a fault tries them: first those that killed a fault of its family earlier
 * in the run (the latest first), then the others in their own order. Only the order changes: every
 * check still runs until one fails, and the write budget is planned on the checks' own order.
 */
export function triedFirst(checks: readonly Check[], killers: readonly string[]): Check[] {
  const first = killers.flatMap((id) => checks.filter((c) => c.id === id));
  return [...first, ...checks.filter((c) => !first.includes(c))];
}

export async function runSelfTest(document: OpenApiDocument, options: SelfTestOptions = {}): Promise<SelfTestResult> {
  checkSuitePeers();
  const started = Date.now();
  const seed = options.seed ?? 7;
  const all = checksFor(document);
  const base = referenceBase(judgeContexts(document).strict.model);
  const mock = base === 'mock' ? await startMockBase(document) : undefined;
  const start = (faults: readonly string[]): Promise<ReferenceServer> =>
    mock !== undefined ? mock.startReference(faults) : startReferenceServer(faults, { document });
  const reference = {} as Record<Level, Outcome>;
  const faults = options.faults ?? generatedFaults(document);
  const killed = new Array<boolean>(faults.length).fill(false);
  const killedBy = new Map<string, string>();
  /** Per family of faults, the checks that killed one of it (the latest first). */
  const killers = new Map<string, string[]>();
  try {
    for (const level of ['spec', 'strict'] as const)
      reference[level] = await runAgainst(start, document, [], checksOfLevel(all, level), level, seed, false);
    await eachConcurrently(faults, options.concurrency ?? 4, async (fault, index) => {
      const list = fault.kind === 'profile' ? fault.fault.split(',') : [fault.fault];
      const checks = checksForFault(all, fault);
      const family = familyOf(fault.fault);
      const order = triedFirst(checks, killers.get(family) ?? []);
      const outcome = await runAgainst(start, document, list, checks, fault.level, seed, true, order);
      killed[index] = outcome.failed.length > 0;
      const by = outcome.failed[0];
      if (by !== undefined) {
        killedBy.set(fault.fault, by);
        killers.set(family, [by, ...(killers.get(family) ?? []).filter((id) => id !== by)]);
      }
    });
  } finally {
    await mock?.close();
  }
  const operations = [...new Set(faults.map((f) => f.operation))];
  return {
    base,
    reference: {
      spec: { passed: reference.spec.passed, failed: reference.spec.failed },
      strict: { passed: reference.strict.passed, failed: reference.strict.failed },
    },
    total: faults.length,
    killed: killed.filter(Boolean).length,
    perOperation: operations.map((operation) => {
      const mine = faults.map((f, i) => ({ f, k: killed[i] === true })).filter(({ f }) => f.operation === operation);
      return { operation, total: mine.length, killed: mine.filter((x) => x.k).length };
    }),
    survivors: faults.filter((_, i) => !killed[i]),
    killedBy,
    durationMs: Date.now() - started,
  };
}

const percent = (killed: number, total: number): string => (total === 0 ? '100%' : `${((100 * killed) / total).toFixed(1)}%`);

/** The self-test's report: the reference server at both levels, the kill rate per operation and in total, the survivors named. */
export function renderSelfTest(result: SelfTestResult, contract: string): string {
  const lines = [
    `goods conformance self-test against ${contract}`,
    `  reference server: ${result.base === 'mock' ? 'the mock, with each fault applied by a front (the hand-written server cannot serve this contract)' : 'the hand-written one'}`,
  ];
  for (const level of ['spec', 'strict'] as const) {
    const r = result.reference[level];
    lines.push(
      `  reference server at ${level}: ${r.passed ? 'passes every check' : `FAILS (${r.failed.join(', ') || 'checks not passed'})`}`,
    );
  }
  for (const op of result.perOperation)
    lines.push(`  ${op.operation}: killed ${op.killed}/${op.total} faults (${percent(op.killed, op.total)})`);
  lines.push(
    `killed ${result.killed}/${result.total} faults (${percent(result.killed, result.total)}) in ${(result.durationMs / 1000).toFixed(1)} s`,
  );
  for (const s of result.survivors) lines.push(`  survived: ${s.description} [${s.fault}] at ${s.level}`);
  return `${lines.join('\n')}\n`;
}

/** 0: the reference passes at both levels and every fault is killed; 1 otherwise. */
export function selfTestExitCode(result: SelfTestResult): 0 | 1 {
  return result.reference.spec.passed && result.reference.strict.passed && result.survivors.length === 0 ? 0 : 1;
}
