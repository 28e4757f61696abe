/**
 * For every registered check, the faults of the reference server that make it fail: the table the
 * suite's tests run (`faults.test.ts`). `alsoFails` lists checks a fault cannot help breaking too.
 */
import { OPERATION_IDS, CREATE_OPERATIONS } from '../operations.js';

export interface FaultCase {
  check: string;
  faults: string[];
  alsoFails?: string[];
}

const AUTH = ['missing', 'non-bearer', 'rejected'] as const;

export const FAULT_CASES: FaultCase[] = [
  { check: 'getOrderInfo.valid-request-2xx', faults: ['order-always-404'] },
  { check: 'getOrderInfo.answer-shape', faults: ['order-wrong-type'] },
  { check: 'getOrderInfo.exact-order', faults: ['order-number-changed'] },
  { check: 'getOrderInfo.unknown-number-not-another-order', faults: ['unknown-order-answers-first'] },
  { check: 'getOrderInfo.status-200', faults: ['order-203'] },
  { check: 'getOrderInfo.strict-shape', faults: ['order-date-format'] },
  { check: 'getOrderInfo.unknown-404', faults: ['unknown-order-410'] },
  { check: 'getOrderInfo.wrong-method-405', faults: ['405-no-allow:getOrderInfo'] },
  ...OPERATION_IDS.flatMap((op) =>
    AUTH.flatMap((variant) => [
      { check: `${op}.auth-${variant}-no-2xx`, faults: [`auth-accepts-${variant}:${op}`] },
      { check: `${op}.auth-${variant}-401`, faults: [`auth-403-${variant}:${op}`] },
    ]),
  ),
  ...OPERATION_IDS.map((op) => ({ check: `${op}.auth-rejected-401`, faults: [`auth-no-invalid-token:${op}`] })),
  ...OPERATION_IDS.map((op) => ({
    check: `${op}.auth-missing-401`,
    faults: [`auth-no-challenge:${op}`],
    alsoFails: [`${op}.auth-non-bearer-401`, `${op}.auth-rejected-401`],
  })),
  ...CREATE_OPERATIONS.flatMap((op) => [
    { check: `${op}.valid-request-2xx`, faults: [`create-rejects:${op}`] },
    { check: `${op}.answer-shape`, faults: [`create-id-string:${op}`] },
    { check: `${op}.echo`, faults: [`ignore-sent-lotnumber:${op}`] },
    { check: `${op}.status-201`, faults: [`create-200:${op}`] },
    { check: `${op}.strict-shape`, faults: [`created-format:${op}`] },
    { check: `${op}.ids-unique`, faults: [`constant-id:${op}`] },
    { check: `${op}.read-only-ignored`, faults: [`keep-read-only:${op}`] },
    { check: `${op}.charset-accepted`, faults: [`charset-415:${op}`] },
    { check: `${op}.unsupported-media-type-415`, faults: [`accept-text-plain:${op}`] },
    { check: `${op}.malformed-json-400`, faults: [`malformed-422:${op}`] },
    { check: `${op}.non-object-json-400`, faults: [`non-object-422:${op}`] },
    { check: `${op}.unknown-lot-422`, faults: [`unknown-lot-400:${op}`] },
    { check: `${op}.unknown-lot-422`, faults: [`unknown-lot-no-pointer:${op}`] },
    { check: `${op}.wrong-method-405`, faults: [`405-no-allow:${op}`] },
    { check: `${op}.missing-required-400`, faults: [`no-required:${op}`] },
    { check: `${op}.wrong-type-400`, faults: [`wrong-type-pointer-root:${op}`] },
    { check: `${op}.out-of-bounds-400`, faults: [`no-bounds:${op}`] },
    { check: `${op}.unknown-member-400`, faults: [`allow-unknown:${op}`] },
  ]),
  { check: 'createLotTransfer.payload-too-large-413', faults: ['no-size-limit'], alsoFails: ['createTestSample.payload-too-large-413'] },
  { check: 'createTestSample.payload-too-large-413', faults: ['no-size-limit'], alsoFails: ['createLotTransfer.payload-too-large-413'] },
  { check: 'createLotTransfer.defaults', faults: ['no-default-completed'] },
  { check: 'createTestSample.defaults', faults: ['default-status-open'] },
  { check: 'createTestSample.sample-number-unique', faults: ['constant-sample-number'] },
  { check: 'server.unknown-path-404', faults: ['unknown-path-400'] },
  { check: 'server.problem-details', faults: ['problem-no-type'] },
  { check: 'server.no-5xx', faults: ['unknown-path-500'], alsoFails: ['server.unknown-path-404'] },
];
