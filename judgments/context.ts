/** The judge contexts of a contract: both levels compiled once, one operations model, shared by both contexts. */
import type { OpenApiDocument } from '../contract/document.js';
import type { Level } from '../contract/levels.js';
import { operationsModel } from '../contract/operations-model.js';
import { compileContract } from '../contract/schemas.js';
import type { JudgeContext } from './exchange.js';

/** Compiled once per document object: runs in one process (a fault table, a test file) share them. */
const compiled = new WeakMap<OpenApiDocument, Record<Level, JudgeContext>>();

export function judgeContexts(document: OpenApiDocument): Record<Level, JudgeContext> {
  const known = compiled.get(document);
  if (known) return known;
  const contracts = { spec: compileContract(document, 'spec'), strict: compileContract(document, 'strict') };
  const model = operationsModel(contracts.strict.document);
  const contexts: Record<Level, JudgeContext> = {
    spec: { level: 'spec', model, contracts },
    strict: { level: 'strict', model, contracts },
  };
  compiled.set(document, contexts);
  return contexts;
}
