/**
 * How the mock makes a created record: the create's record model, read once by the operations model
 * (`contract/record-rules.ts`: which members the server assigns, which defaults fill a member left
 * out), checked here for what the mock can do:
 * - `readOnly` members of the request are stripped from the request body after validation;
 * - an `id` is the next number of the resource, a `timestamp` the time of the create or the change;
 * - `default`, `from-lot` (`x-default-from`) and `sequence` (`x-default-sequence`) fill a member left out.
 * A `readOnly` member that is neither an integer nor a date-time is one the mock cannot assign.
 */
import type { JsonValue } from '../contract/document.js';
import type { OperationModel, RecordModel } from '../contract/operations-model.js';

export type { FieldRule, FieldSpec, RecordModel } from '../contract/operations-model.js';

/** The record model of a create (throws when the mock cannot make its records); `lotResource`: the lots the mock holds. */
export function recordModel(op: OperationModel, lotResource: string | undefined): RecordModel {
  const where = op.operationId;
  const model = op.recordModel;
  if (model === undefined) throw new Error(`${where}: not a create of the operations model`);
  for (const field of model.fields) {
    if (field.rule.kind === 'assigned')
      throw new Error(`${where}: the readOnly member "${field.name}" is neither an integer id nor a date-time; the mock cannot assign it`);
    if (field.rule.kind === 'from-lot' && lotResource === undefined)
      throw new Error(
        `${where}: "${field.name}" is read from a lot (x-default-from), but no request member of the contract's creates names a lot the mock holds`,
      );
  }
  return model;
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
