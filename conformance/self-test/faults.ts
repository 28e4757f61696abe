/**
 * For every registered check, the faults of the reference server that make it fail: the table the
 * suite's tests run (`faults.test.ts`). A check module (`checks/`) brings its own rows (`defineCheck`'s
 * `faults`, and the behaviours of faults the reference server does not have, `overrides`); the rows of
 * the checks still written in families are listed here. `alsoFails` lists checks a fault cannot help
 * breaking too.
 */
import { CHECK_MODULES, type CheckModule } from '../../checks/index.js';
import type { FaultCase } from '../../checks/define.js';
import { BUNDLED, CREATE_IDS as CREATE_OPERATIONS, type CheckSource } from '../checks/helpers.js';

export type { FaultCase } from '../../checks/define.js';

/** A sample counter kept per lot: the fault the uniqueness check must catch under any seed (`faults.test.ts` runs it under five). */
export const SEQUENCE_PER_LOT = 'sequence-per-lot';

/**
 * Behaviours a correct server may have: they fail nothing. A case-insensitive or space-trimming order
 * lookup (as database collations do); date-times in forms RFC 3339 allows and narrow validators refuse
 * (`+05:30` with nine fraction digits, a lower-case `t` and `z`).
 */
export const ALLOWED_VARIATIONS = ['order-case-insensitive', 'order-trimmed', 'date-time-rfc-edges'];

/** The rows of the checks still written in their families in `conformance/checks/` (a module's own rows come with it). */
const FAMILY_CASES: FaultCase[] = [
  ...CREATE_OPERATIONS.flatMap((op) => [
    { check: `${op}.valid-request-2xx`, faults: [`create-rejects:${op}`] },
    { check: `${op}.answer-shape`, faults: [`create-id-string:${op}`] },
    { check: `${op}.echo`, faults: [`ignore-sent-default-from:${op}`] },
    // Every lot of the order: a server taking every lot for the first one.
    { check: `${op}.echo`, faults: [`first-lot-only:${op}`] },
    // JSON that is not an object: null answered 500.
    { check: `${op}.non-object-json-400`, faults: [`null-body-500:${op}`], alsoFails: ['server.no-5xx'] },
    // Several problems in one body: only the first reported.
    { check: `${op}.several-problems-400`, faults: [`first-problem-only:${op}`] },
    { check: `${op}.defaults`, faults: [`wrong-default:${op}`] },
    { check: `${op}.status-201`, faults: [`create-200:${op}`] },
    { check: `${op}.strict-shape`, faults: [`created-format:${op}`] },
    { check: `${op}.ids-unique`, faults: [`constant-id:${op}`] },
    { check: `${op}.read-only-ignored`, faults: [`keep-read-only:${op}`] },
    { check: `${op}.charset-accepted`, faults: [`charset-415:${op}`] },
    { check: `${op}.unsupported-media-type-415`, faults: [`accept-text-plain:${op}`] },
    // A body with no Content-Type at all parsed as JSON.
    { check: `${op}.unsupported-media-type-415`, faults: [`no-content-type-json:${op}`] },
    { check: `${op}.malformed-json-400`, faults: [`malformed-422:${op}`] },
    { check: `${op}.non-object-json-400`, faults: [`non-object-422:${op}`] },
    { check: `${op}.unknown-lot-422`, faults: [`unknown-lot-400:${op}`] },
    // A body of a wrong JSON type stored and answered as sent (spec level).
    { check: `${op}.invalid-not-created-as-sent`, faults: [`store-wrong-type:${op}`] },
    { check: `${op}.unknown-lot-422`, faults: [`unknown-lot-no-pointer:${op}`] },
    { check: `${op}.wrong-method-405`, faults: [`405-no-allow:${op}`] },
    {
      check: `${op}.missing-required-400`,
      faults: [`no-required:${op}`],
      // A create's several-problems body holds one problem of this class too.
      alsoFails: [`${op}.several-problems-400`],
    },
    {
      check: `${op}.wrong-type-400`,
      faults: [`wrong-type-pointer-root:${op}`],
      // A create's several-problems body holds one problem of this class too.
      alsoFails: [`${op}.several-problems-400`],
    },
    {
      check: `${op}.out-of-bounds-400`,
      faults: [`no-bounds:${op}`],
      // A create's several-problems body holds one problem of this class too.
      alsoFails: [`${op}.several-problems-400`],
    },
    // Unknown members: a pointer not escaped (~1, ~0); near misses of real members bound to them (aliasing).
    { check: `${op}.unknown-member-400`, faults: [`pointer-unescaped:${op}`] },
    { check: `${op}.unknown-member-400`, faults: [`member-aliases:${op}`] },
    {
      check: `${op}.unknown-member-400`,
      faults: [`allow-unknown:${op}`],
      // A create's several-problems body holds one problem of this class too.
      alsoFails: [`${op}.several-problems-400`],
    },
  ]),
  // Framing: the limit checked against Content-Length only (a chunked body past it read and accepted); a chunked body read with its framing.
  ...CREATE_OPERATIONS.flatMap((op) => [
    { check: `${op}.payload-too-large-413`, faults: [`chunked-no-limit:${op}`] },
    { check: `${op}.chunked-body-2xx`, faults: [`chunked-raw:${op}`] },
  ]),
  { check: 'createLotTransfer.payload-too-large-413', faults: ['no-size-limit'], alsoFails: ['createTestSample.payload-too-large-413'] },
  { check: 'createTestSample.payload-too-large-413', faults: ['no-size-limit'], alsoFails: ['createLotTransfer.payload-too-large-413'] },
  // Body sizes between common server limits and the profile's: a server keeping its stack's 100 KiB default
  // (it also refuses the corpus body of test samples whose two 64 KiB text classes meet in one row).
  ...['createLotTransfer.large-body-2xx', 'createTestSample.large-body-2xx'].map((check) => ({
    check,
    faults: ['limit-100kb'],
    alsoFails: [
      'createLotTransfer.large-body-2xx',
      'createTestSample.large-body-2xx',
      'createTestSample.valid-request-2xx',
      'createTestSample.status-201',
    ].filter((c) => c !== check),
  })),
  // Value classes of the create members: `completed: true` ignored, a large amount or a non-ASCII string refused.
  { check: 'createLotTransfer.echo', faults: ['ignore-sent-true:createLotTransfer'] },
  { check: 'createLotTransfer.valid-request-2xx', faults: ['reject-large-number:createLotTransfer'] },
  ...CREATE_OPERATIONS.map((op) => ({ check: `${op}.valid-request-2xx`, faults: [`reject-non-ascii:${op}`] })),
  // Date-times RFC 3339 refuses and lenient validators accept: an offset without its colon, a space for T, no seconds, hour 24.
  { check: 'createLotTransfer.strict-shape', faults: ['date-time-no-colon:createLotTransfer'] },
  { check: 'createTestSample.strict-shape', faults: ['date-time-space:createTestSample'] },
  { check: 'createTestSample.strict-shape', faults: ['date-time-no-seconds:createTestSample'] },
  { check: 'createLotTransfer.strict-shape', faults: ['date-time-hour-24:createLotTransfer'] },
  { check: 'createTestSample.sample-number-unique', faults: ['constant-sequence'] },
  // Sequences long enough to expose counters: one kept per lot, one repeating after five values; ids counted per lot.
  { check: 'createTestSample.sample-number-unique', faults: [SEQUENCE_PER_LOT] },
  { check: 'createTestSample.sample-number-unique', faults: ['sequence-cycle-5'] },
  ...CREATE_OPERATIONS.map((op) => ({ check: `${op}.ids-unique`, faults: [`id-per-lot:${op}`] })),
];

/** The fault table of a contract: every module's rows (in the list's order), then the families'. */
export function faultCasesOf(source: CheckSource = BUNDLED, modules: readonly CheckModule[] = CHECK_MODULES): FaultCase[] {
  return [...modules.flatMap((m) => m.faultCases(source)), ...FAMILY_CASES];
}

export const FAULT_CASES: FaultCase[] = faultCasesOf();
