/** The contract's operations, by operationId, as the checks address them. */
import type { operations } from '../contract/generated/types.js';

export type OperationId = keyof operations;
export const OPERATION_IDS = ['getOrderInfo', 'createLotTransfer', 'createTestSample'] as const satisfies readonly OperationId[];
export type CreateOperationId = Exclude<OperationId, 'getOrderInfo'>;
export const CREATE_OPERATIONS = ['createLotTransfer', 'createTestSample'] as const satisfies readonly CreateOperationId[];
