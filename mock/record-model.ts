/**
 * How a created record is built, read from the operations model once at start-up (the model is the one
 * reader of the contract's schemas and `x-` extensions; no field rule is written in handler code):
 * - `readOnly` members of the request schema are stripped from the request body after validation;
 * - `readOnly` members of the answer are assigned by the server: an integer is the next id of the
 *   resource, a `date-time` string the time of the create (the first one) or of the last change (any
 *   other: `modified`);
 * - `default: v` fills an omitted member with v;
 * - `x-default-from: lot.<member>` fills it from that member of the lot the body references;
 * - `x-default-sequence: {prefix, width}` fills it with the next number of a per-resource sequence.
 */
import type { JsonValue } from '../contract/document.js';
import type { MemberModel, OperationModel } from '../contract/operations-model.js';

export type FieldRule =
  | { kind: 'id' }
  /** `stamp`: set at the create only (`created`), or at every change too (`modified`). */
  | { kind: 'timestamp'; stamp: 'created' | 'changed' }
  | { kind: 'default'; value: JsonValue }
  | { kind: 'from-lot'; member: string }
  | { kind: 'sequence'; prefix: string; width: number }
  | { kind: 'input' };

export interface FieldSpec {
  name: string;
  rule: FieldRule;
}

export interface RecordModel {
  /** The answer's members, in the contract's order, with how each gets its value. */
  fields: FieldSpec[];
  /** Request members the server assigns itself (stripped from a request body). */
  readOnly: string[];
  /** The request member naming a lot (`fk_lot_id`), when the create names one. */
  lotMember?: string;
}

function ruleFor(where: string, member: MemberModel, lotResource: string | undefined, first: { stamp: boolean }): FieldRule {
  if (member.readOnly) {
    if (member.type === 'integer') return { kind: 'id' };
    if (member.type === 'string' && member.format === 'date-time') {
      const stamp = first.stamp ? 'created' : 'changed';
      first.stamp = false;
      return { kind: 'timestamp', stamp };
    }
    throw new Error(`${where}: the readOnly member "${member.name}" is neither an integer id nor a date-time; the mock cannot assign it`);
  }
  if (member.defaultFrom !== undefined) {
    if (member.defaultFrom.resource !== lotResource)
      throw new Error(
        `${where}: x-default-from "${member.defaultFrom.resource}.${member.defaultFrom.member}" of "${member.name}" names no records the mock holds${lotResource !== undefined ? ` (the lots are "${lotResource}")` : ''}`,
      );
    return { kind: 'from-lot', member: member.defaultFrom.member };
  }
  if (member.defaultSequence !== undefined) return { kind: 'sequence', ...member.defaultSequence };
  if (member.default !== undefined) return { kind: 'default', value: member.default };
  return { kind: 'input' };
}

/** Builds the record model of a create from the operations model (its request and success members) and the lots' resource name. */
export function recordModel(op: OperationModel, lotResource: string | undefined): RecordModel {
  const where = op.operationId;
  const first = { stamp: true };
  const fields = op.successMembers.map((member) => ({ name: member.name, rule: ruleFor(where, member, lotResource, first) }));
  const readOnly = op.members.filter((m) => m.readOnly).map((m) => m.name);
  const lotMember = op.members.find((m) => m.namesLot)?.name;
  return { fields, readOnly, ...(lotMember !== undefined ? { lotMember } : {}) };
}

/** The next value of a sequence, e.g. `S-000001`. */
export function formatSequence(prefix: string, width: number, n: number): string {
  return `${prefix}${String(n).padStart(width, '0')}`;
}

/** The number in a sequence value, or 0 when it is not one (a value the client chose). */
export function parseSequence(prefix: string, value: JsonValue | undefined): number {
  if (typeof value !== 'string' || !value.startsWith(prefix)) return 0;
  const digits = value.slice(prefix.length);
  return /^\d{1,15}$/.test(digits) ? Number(digits) : 0;
}
