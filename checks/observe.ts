/** What the observations of several modules share: a schema judgment's findings labelled with their level, a create's operation. */
import type { Level } from '../contract/levels.js';
import type { CreateOperationId } from '../contract/operations-model.js';
import type { Violation } from '../judgments/exchange.js';
import type { Finding, ObservedExchange } from './define.js';

/**
 * A schema judgment at the judged level, each finding labelled with the lowest level it belongs to:
 * at `strict`, a problem the spec level finds too (same place) is a `spec` problem.
 */
export function levelled(input: ObservedExchange, judge: (level: Level) => Violation[]): Finding[] {
  if (input.jc.level === 'spec') return judge('spec');
  const where = (v: Violation): string => `${v.in ?? ''} ${v.header ?? ''} ${v.pointer ?? ''}`;
  const atSpec = new Set(judge('spec').map(where));
  return judge('strict').map((v) => ({ ...v, level: atSpec.has(where(v)) ? ('spec' as const) : ('strict' as const) }));
}

/** The create operation the request names, if it names one. */
export const createOf = (input: ObservedExchange): CreateOperationId | undefined =>
  input.op !== undefined && input.jc.model.isCreate(input.op) ? input.op : undefined;
