/** The judge contexts of a contract: both levels compiled once, one operations model, shared by both contexts. */
import type { OpenApiDocument } from '../contract/document.js';
import type { Level } from '../contract/levels.js';
import { operationsModel } from '../contract/operations-model.js';
import { compileContract } from '../contract/schemas.js';
import type { JudgeContext } from './exchange.js';

export function judgeContexts(document: OpenApiDocument): Record<Level, JudgeContext> {
  const contracts = { spec: compileContract(document, 'spec'), strict: compileContract(document, 'strict') };
  const model = operationsModel(contracts.strict.document);
  return { spec: { level: 'spec', model, contracts }, strict: { level: 'strict', model, contracts } };
}
