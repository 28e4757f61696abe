/**
 * Whether a stored record is one the contract in force could have answered: what a replayed journal
 * line or a record found in Redis must pass before the mock serves it (a journal or a Redis written
 * under another contract version may hold records the current contract refuses).
 *
 * A record is what a create answered, so it is checked against the create's success schema (its
 * types, formats, bounds, required members), and holds only the members that schema names (the mock
 * writes no other; a member it does not name came from another contract). Its key, the member the
 * mock numbers (`id`), must be a whole number from 1: the listings page by it, so a record without a
 * usable key could never be listed.
 */
import { createHash } from 'node:crypto';
import { isObject, type OpenApiDocument } from '../contract/document.js';
import type { FieldError, Validator } from '../contract/schemas.js';
import { childPointer } from '../util/json-pointer.js';

/** What a resource's records must be, read from its create. */
export interface RecordRules {
  resource: string;
  /** The component name of the create's success body (`LotTransfer`), for messages. */
  schemaName: string;
  /** The validator of the create's success body. */
  validate: Validator;
  /** The members of the success body, in contract order. */
  members: readonly string[];
  /** The member the mock numbers (the record's key), when the record has one. */
  keyMember: string | undefined;
}

export interface RecordVerdict {
  /** Every reason the contract in force refuses the record (none: it is accepted). */
  problems: FieldError[];
  /** The record's key, when it has a usable one. */
  key?: { member: string; value: number };
}

/** Checks a record of a resource against the contract in force. */
export type RecordCheck = (resource: string, record: unknown) => RecordVerdict;

/** The version of what `recordCheck` checks: a new one makes every stamp of an earlier one stale. */
const CHECK_VERSION = 'record-check 1';

/**
 * What a check of records under this contract stands for: a record checked (or written) under the same
 * stamp need not be checked again. The SHA-256 of the contract document and of the check's version.
 */
export function recordStamp(document: OpenApiDocument): string {
  return createHash('sha256').update(CHECK_VERSION).update('\n').update(JSON.stringify(document)).digest('hex');
}

/** The check of every resource the contract's creates record. */
export function recordCheck(rules: readonly RecordRules[]): RecordCheck {
  const byResource = new Map(rules.map((rule) => [rule.resource, { ...rule, known: new Set(rule.members) }]));
  return (resource, record) => {
    const rule = byResource.get(resource);
    if (!rule) {
      const known = [...byResource.keys()].join(', ');
      return {
        problems: [{ pointer: '', detail: `the contract in force has no create that records "${resource}" (it records ${known})` }],
      };
    }
    const problems = [...rule.validate(record)];
    if (!isObject(record)) return { problems };
    const reported = (pointer: string) => problems.some((problem) => problem.pointer === pointer);
    for (const name of Object.keys(record)) {
      if (rule.known.has(name)) continue;
      const pointer = childPointer('', name);
      if (!reported(pointer)) problems.push({ pointer, detail: `is not a member of ${rule.schemaName} in the contract in force` });
    }
    if (rule.keyMember === undefined) return { problems };
    const value = record[rule.keyMember];
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return { problems, key: { member: rule.keyMember, value } };
    const pointer = childPointer('', rule.keyMember);
    if (reported(pointer)) return { problems };
    const shown = value === undefined ? 'it is missing' : `found ${JSON.stringify(value).slice(0, 40)}`;
    problems.push({ pointer, detail: `is not a usable key: the mock numbers its records 1, 2, 3, ... and lists them by it (${shown})` });
    return { problems };
  };
}
