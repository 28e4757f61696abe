/**
 * How a create makes its record, read once from its members (the one reading of the server-assigned
 * members, which the mock fills in and the suite and the proxy judge):
 * - a `readOnly` member of the answer is assigned by the server: an integer is the next id of the
 *   resource, a `date-time` string the time of the create (the first one) or of the last change (any
 *   other); any other `readOnly` member is assigned by no rule the contract states;
 * - `x-default-sequence` fills a member left out with the next value of a sequence of the resource;
 * - `x-default-from: <lot resource>.<member>` with that member of the lot the body names;
 * - `default: v` with v;
 * - `readOnly` members of the request are the ones a server ignores (the mock strips them).
 * The record roles (`RecordRoles`: the id, the first stamp, the lot member) are read from this model.
 */
import type { FieldRule, MemberModel, OperationModel, RecordModel, RecordRoles } from './model-types.js';

function ruleOf(member: MemberModel, first: { stamp: boolean }): FieldRule {
  if (member.readOnly) {
    if (member.type === 'integer') return { kind: 'id' };
    if (member.type === 'string' && member.format === 'date-time') {
      const stamp = first.stamp ? 'created' : 'changed';
      first.stamp = false;
      return { kind: 'timestamp', stamp };
    }
    return { kind: 'assigned' };
  }
  // The operations model admits one of these per member and an x-default-from naming the lot resource only.
  if (member.defaultFrom !== undefined) return { kind: 'from-lot', member: member.defaultFrom.member };
  if (member.defaultSequence !== undefined) return { kind: 'sequence', ...member.defaultSequence };
  if (member.default !== undefined) return { kind: 'default', value: member.default };
  return { kind: 'input' };
}

/** A create's record model, from its request and success members. */
export function recordModelOf(op: Pick<OperationModel, 'members' | 'successMembers'>): RecordModel {
  const first = { stamp: true };
  const fields = op.successMembers.map((member) => ({ name: member.name, rule: ruleOf(member, first) }));
  const readOnly = op.members.filter((m) => m.readOnly).map((m) => m.name);
  const lotMember = op.members.find((m) => m.namesLot)?.name;
  return { fields, readOnly, ...(lotMember !== undefined ? { lotMember } : {}) };
}

/** A create's record roles, read from its record model: undefined when the server numbers no member. */
export function recordRolesOf(model: RecordModel): RecordRoles | undefined {
  const id = model.fields.find((f) => f.rule.kind === 'id');
  if (id === undefined) return undefined;
  const created = model.fields.find((f) => f.rule.kind === 'timestamp' && f.rule.stamp === 'created');
  return {
    idMember: id.name,
    ...(created !== undefined ? { createdMember: created.name } : {}),
    ...(model.lotMember !== undefined ? { lotMember: model.lotMember } : {}),
  };
}
