/**
 * THE list of check modules: the suite (`conformance/checks/index.ts`), the validating proxy
 * (`mock/proxy/judgments.ts`) and the self-test (`conformance/self-test/faults.ts` and its reference
 * server) all read it. Adding a check: one module (`defineCheck`, see `define.ts`) and one entry here.
 * The suite runs the checks in the list's order, so the checks of the whole server (`server.*`), last,
 * judge the answers of the whole run; the proxy applies the client observations before the server ones
 * (each side in the list's order: the observations of some modules stand apart, early, as `*Observed`).
 */
import type { CheckModule } from './define.js';
import { documentedAnswerShape, documentedStrictShape } from './documented.js';
import { authModule } from './auth.js';
import { createModule, createObserved } from './create.js';
import { documentedObserved } from './observed.js';
import {
  orderAnswerShape,
  orderExact,
  orderStatus200,
  orderStrictShape,
  orderUnknown404,
  orderUnknownNotAnother,
  orderValidRequest,
  orderWrongMethod,
} from './order-info.js';
import { pathVariants404 } from './paths.js';
import { recordChecks } from './records.js';
import { requestErrorsModule, requestErrorsObserved } from './request-errors.js';
import { requestRules } from './request.js';
import { contentCoding, contentCodingAsked, noServerError, problemDetails, unknownPath404 } from './server.js';

export type { CheckModule } from './define.js';

export const CHECK_MODULES: readonly CheckModule[] = [
  requestRules,
  orderValidRequest,
  orderAnswerShape,
  orderExact,
  orderUnknownNotAnother,
  orderStatus200,
  orderStrictShape,
  orderUnknown404,
  orderWrongMethod,
  documentedObserved,
  createObserved,
  requestErrorsObserved,
  authModule,
  createModule,
  recordChecks,
  documentedAnswerShape,
  documentedStrictShape,
  requestErrorsModule,
  pathVariants404,
  unknownPath404,
  problemDetails,
  contentCoding,
  contentCodingAsked,
  noServerError,
];
