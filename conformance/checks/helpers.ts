/** Shared steps of the checks: what a check list is built from, the bundled contract's, a case about a 2xx answer. */
import { readContractFile, type ContractFile, type OpenApiDocument } from '../../contract/document.js';
import type { CreateOperationId, OperationsModel } from '../../contract/operations-model.js';
import { judgeContexts } from '../../judgments/context.js';
import type { CheckSource } from '../../checks/define.js';

export type { CheckSource } from '../../checks/define.js';

export function sourceOf(document: OpenApiDocument): CheckSource {
  const { model, contracts } = judgeContexts(document).strict;
  return { model, contracts };
}

/**
 * The bundled contract, read once: a run without --contract judges this very document (`loadContract`),
 * so its compiled schemas and its checks, made once per document object, are made once per process.
 */
export const BUNDLED_FILE: ContractFile = readContractFile();
/** The bundled contract: the default checks, `--list-checks` without --contract, and the suite's own fault table. */
export const BUNDLED: CheckSource = sourceOf(BUNDLED_FILE.document);
export const MODEL: OperationsModel = BUNDLED.model;
export const CREATE_IDS: CreateOperationId[] = MODEL.createIds;
export const OPERATION_IDS = MODEL.operations.map((op) => op.operationId);

export { needs2xx, on2xx } from '../../checks/skip.js';

export type { CreateOperationId };
