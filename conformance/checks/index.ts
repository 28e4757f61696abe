/**
 * THE list of checks. Every check the suite runs is registered here, once; the runner runs each
 * one whose level is within the chosen level, and the suite's own tests require a fault case for
 * each of them.
 */
import type { OpenApiDocument } from '../../contract/document.js';
import { authChecks } from './auth.js';
import { createChecks } from './create.js';
import { documentedChecks } from './documented.js';
import { orderInfoChecks } from './order-info.js';
import { recordChecks } from './records.js';
import { pathChecks } from './paths.js';
import { requestErrorChecks } from './request-errors.js';
import { BUNDLED, sourceOf, type CheckSource } from './helpers.js';
import { serverChecks } from './server.js';
import type { Check } from './types.js';

export type { Check } from './types.js';

/** The checks of a contract: every case and every check derived from its operations model and schemas. */
export function checksOf(source: CheckSource): Check[] {
  return [
    ...orderInfoChecks(source),
    ...authChecks(source),
    ...createChecks(source),
    ...recordChecks(source),
    ...documentedChecks(source),
    ...requestErrorChecks(source),
    ...pathChecks(source),
    ...serverChecks(source),
  ];
}

const made = new WeakMap<OpenApiDocument, readonly Check[]>();

/** The checks of a contract document (built once per document object). */
export function checksFor(document: OpenApiDocument): readonly Check[] {
  let checks = made.get(document);
  if (!checks) {
    checks = checksOf(sourceOf(document));
    made.set(document, checks);
  }
  return checks;
}

/** The checks of the bundled contract. */
export const CHECKS: readonly Check[] = checksOf(BUNDLED);
