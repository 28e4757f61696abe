/**
 * The data a create's checks are built from, as a check module sees it: the shapes of the cases the
 * suite's data generator derives from a contract (`conformance/data.ts`: value classes, the create
 * corpus, invalid bodies) and the generator itself (`CheckData`), which the suite hands to the list
 * (`CheckSource.data`). The generator loads json-schema-faker; this folder never imports it, so the
 * validating proxy, which reads the same list, does not load it.
 */
import type { JsonObject, JsonValue } from '../contract/document.js';
import type { Level } from '../contract/levels.js';
import type { MemberModel, OperationId, OperationModel, OperationsModel } from '../contract/operations-model.js';
import type { CompiledContract, KeywordValidator } from '../contract/schemas.js';

/** A lot of the order, as the server answered it. */
export interface DiscoveredLot {
  id: number;
  /** The lot object as answered (for `x-default-from` defaults). */
  value: JsonObject;
}

export interface ValueClass {
  name: string;
  value: JsonValue;
  reason?: string;
}

export interface CorpusBody {
  /** e.g. `lot 2002; amount: fraction; completed: true; lotnumber: omitted` */
  name: string;
  body: JsonObject;
  lot: DiscoveredLot;
}

export interface InvalidBody {
  /** What was broken, e.g. `amount: exclusiveMinimum 0 broken (equal)`. */
  label: string;
  /** The keyword broken (`type`, `required`, `maxLength`, `unevaluatedProperties`, ...). */
  keyword: string;
  body: JsonObject;
  /** The JSON Pointers the answer's `errors[]` must name (one entry per problem). */
  pointers: string[];
  /** Invalid at `spec` too (a specification-level keyword), or at `strict` only (a profile keyword). */
  levels: Level[];
}

/** What the cases of one create operation are derived from: its model and its request schema compiled at both levels. */
export interface Derivation {
  op: OperationModel;
  /** The request schema, `$ref`s inlined and `allOf` merged. */
  schema: JsonObject;
  validate: Record<Level, KeywordValidator>;
}

/** A body size between common server limits and the profile's limit. */
export interface BodySize {
  name: string;
  bytes: number;
  reason: string;
}

/** A media type that nearly matches `application/json`; `null`: a body sent without a Content-Type. */
export interface MediaTypeClass<T extends string | null = string> {
  name: string;
  contentType: T;
  reason: string;
}

/** A JSON text of a case (malformed, or not an object). */
export interface TextCase {
  label: string;
  text: string;
}

/**
 * The suite's data generator (`conformance/data.ts` and the value catalogue), handed to the checks
 * with the contract they are listed for: the case names are built when the checks are listed, the
 * bodies when they run. Pure functions of the derivation and the bodies given.
 */
export interface CheckData {
  /** At most this many lots of the order are named by the create corpus. */
  readonly lotCap: number;
  /** The name of a member no schema has. */
  readonly unknownMember: string;
  /** Keyword families of the invalid-body checks. */
  readonly keywordFamilies: {
    readonly required: readonly string[];
    readonly type: readonly string[];
    readonly bounds: readonly string[];
    readonly unknown: readonly string[];
  };
  /** Body sizes between common server limits and the profile's; media types a correct server accepts, and refuses. */
  readonly bodySizes: readonly BodySize[];
  readonly mediaTypesAccepted: readonly MediaTypeClass[];
  readonly mediaTypesRefused: readonly MediaTypeClass<string | null>[];
  derivationOf(jc: { model: OperationsModel; contracts: Record<Level, CompiledContract> }, id: OperationId): Derivation;
  /** The members a client writes (server-assigned ones aside). */
  readonly writable: (op: OperationModel) => MemberModel[];
  baseBody(d: Derivation, lotId: number | undefined): JsonObject;
  memberClasses(d: Derivation, member: MemberModel, body?: JsonObject): ValueClass[];
  ensureMarker(d: Derivation, body: JsonObject, tag: string, except?: readonly string[]): string | undefined;
  paddedBody(d: Derivation, body: JsonObject, bytes: number, tag: string): { body: JsonObject; member: string } | undefined;
  invalidBodies(d: Derivation, valid: JsonObject): InvalidBody[];
  severalProblems(cases: readonly InvalidBody[], valid: JsonObject): InvalidBody[];
  nonObjectJson(valid: JsonObject): TextCase[];
  malformedJson(valid: JsonObject): TextCase[];
  withMarkers(d: Derivation, body: JsonObject, tag: string): JsonObject;
}
