/**
 * THE list of check modules: the suite (`conformance/checks/index.ts`), the validating proxy
 * (`mock/proxy/judgments.ts`) and the self-test (`conformance/self-test/faults.ts` and its reference
 * server) all read it. Adding a check: one module (`defineCheck`, see `define.ts`) and one entry here.
 * The suite runs the checks of the whole server (`server.*`) after every other check, so they judge
 * the answers of the whole run; the proxy applies the client observations before the server ones.
 */
import type { CheckModule } from './define.js';
import { authObserved, createObserved, documentedObserved, requestErrorsObserved } from './observed.js';
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
  authObserved,
  documentedObserved,
  createObserved,
  requestErrorsObserved,
  unknownPath404,
  problemDetails,
  contentCoding,
  contentCodingAsked,
  noServerError,
];
