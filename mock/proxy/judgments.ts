/**
 * The rules the proxy applies to traffic it observes: the observations of the one list of checks
 * (`checks/index.ts`, which the suite and the self-test read too). No rule is judged or listed here:
 * each check module says when its shared judgment applies to an exchange nobody generated (which
 * operation, which credentials the client presented, what it sent). Client observations run first
 * (the server ones read which client rules were broken).
 */
import { CHECK_MODULES, type CheckModule } from '../../checks/index.js';
import type { Observation } from '../../checks/define.js';

export type { Finding, ObservedExchange as ProxyJudgeInput, Observation as Judgment } from '../../checks/define.js';

/** The observations of a list of check modules, client ones first (each side in the list's order). */
export function observationsOf(modules: readonly CheckModule[]): readonly Observation[] {
  const all = modules.flatMap((m) => m.observe);
  return [...all.filter((o) => o.side === 'client'), ...all.filter((o) => o.side === 'server')];
}

/** Every observation of the registered checks. */
export const JUDGMENTS: readonly Observation[] = observationsOf(CHECK_MODULES);
