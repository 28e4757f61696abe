/** What a list of checks is built from (`CheckSource`): a contract's model and schemas, and the suite's data generator; the bundled contract's. */
import { readContractFile, type ContractFile, type OpenApiDocument } from '../../contract/document.js';
import { judgeContexts } from '../../judgments/context.js';
import type { CheckSource } from '../../checks/define.js';
import type { CheckData } from '../../checks/data.js';
import {
  baseBody,
  derivationOf,
  ensureMarker,
  invalidBodies,
  KEYWORD_FAMILIES,
  LOT_CAP,
  malformedJson,
  memberClasses,
  nonObjectJson,
  paddedBody,
  severalProblems,
  UNKNOWN_MEMBER,
  withMarkers,
  writable,
} from '../data.js';
import { BODY_SIZES, MEDIA_TYPES_ACCEPTED, MEDIA_TYPES_REFUSED } from '../values/catalogue.js';

export type { CheckSource } from '../../checks/define.js';

/** The suite's data generator as the check modules are handed it (`checks/data.ts`): they never load it themselves. */
export const CHECK_DATA: CheckData = {
  lotCap: LOT_CAP,
  unknownMember: UNKNOWN_MEMBER,
  keywordFamilies: KEYWORD_FAMILIES,
  bodySizes: BODY_SIZES,
  mediaTypesAccepted: MEDIA_TYPES_ACCEPTED,
  mediaTypesRefused: MEDIA_TYPES_REFUSED,
  derivationOf,
  writable,
  baseBody,
  memberClasses,
  ensureMarker,
  paddedBody,
  invalidBodies,
  severalProblems,
  nonObjectJson,
  malformedJson,
  withMarkers,
};

export function sourceOf(document: OpenApiDocument): CheckSource {
  const { model, contracts } = judgeContexts(document).strict;
  return { model, contracts, data: CHECK_DATA };
}

/**
 * The bundled contract, read once: a run without --contract judges this very document (`loadContract`),
 * so its compiled schemas and its checks, made once per document object, are made once per process.
 */
export const BUNDLED_FILE: ContractFile = readContractFile();
/** The bundled contract: the default checks, `--list-checks` without --contract, and the suite's own fault table. */
export const BUNDLED: CheckSource = sourceOf(BUNDLED_FILE.document);
