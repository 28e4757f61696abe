/**
 * JSON Schema validation compiled from the contract with ajv (JSON Schema 2020-12, as OpenAPI 3.1
 * uses). Validators are compiled once, when `compileContract` is called; validating a value does no
 * schema work.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isObject, type JsonValue, type OpenApiDocument } from './document.js';
import { addRfcFormats } from './formats.js';
import { deriveLevel, type Level } from './levels.js';
import { linearRegExp } from './patterns.js';
import { assertSound } from './soundness.js';
import { childPointer, valueAt } from '../util/json-pointer.js';
import { deepFreeze, isFrozenWhole } from '../util/frozen.js';

const addFormats = addFormatsModule.default;

/** One problem found in a value: where (RFC 6901 JSON Pointer) and what. */
export interface FieldError {
  pointer: string;
  detail: string;
}

/**
 * A compiled validator: the problems found in `value` (none when it is valid). The verdict on a value
 * frozen whole (`util/frozen.ts`: the proxy's parsed answer read again) is remembered and handed out
 * again, so it is read-only.
 */
export type Validator = (value: unknown) => readonly FieldError[];

/** A problem with the JSON Schema keyword that found it (`type`, `maxLength`, `required`, ...): what the suite's case derivation reads. */
export interface KeywordError extends FieldError {
  keyword: string;
}

/** A validator that also names each problem's keyword (never used on the mock's request path: answers carry `FieldError`s only). */
export type KeywordValidator = (value: unknown) => KeywordError[];

/** The verdict on a valid value (shared: frozen). */
const NO_ERRORS: readonly FieldError[] = Object.freeze([]);

/** OpenAPI's own keywords, allowed beside JSON Schema keywords (they carry no validation). */
const OPENAPI_KEYWORDS = [
  'openapi',
  'info',
  'jsonSchemaDialect',
  'servers',
  'paths',
  'webhooks',
  'components',
  'security',
  'tags',
  'externalDocs',
  'discriminator',
  'xml',
  'example',
];

/** The base URI under which the contract is registered in ajv. */
const CONTRACT_ID = 'urn:goods:contract';

function collectExtensionKeywords(node: JsonValue, into: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectExtensionKeywords(item, into);
  } else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-')) into.add(key);
      collectExtensionKeywords(value, into);
    }
  }
}

/**
 * Turns ajv's errors into field errors whose pointer names the offending member itself. `data`, the
 * value validated, lets a detail say what the value is where ajv's message would mislead.
 */
export function toFieldErrors(errors: readonly ErrorObject[] | null | undefined, data?: unknown): FieldError[] {
  return toKeywordErrors(errors, data).map(({ pointer, detail }) => ({ pointer, detail }));
}

/**
 * A number JSON can write but a double cannot hold (`1e400` parses to Infinity): "must be of type
 * number" would deny that it is a number.
 */
function outOfRange(value: unknown): string | undefined {
  if (typeof value !== 'number' || Number.isFinite(value)) return undefined;
  return `is a number beyond the range of a 64-bit float (it reads as ${String(value)}); send a number between -1.7976931348623157e308 and 1.7976931348623157e308`;
}

/** `toFieldErrors`, keeping the keyword of each problem. */
export function toKeywordErrors(errors: readonly ErrorObject[] | null | undefined, data?: unknown): KeywordError[] {
  const seen = new Set<string>();
  const result: KeywordError[] = [];
  for (const error of errors ?? []) {
    let pointer = error.instancePath;
    let detail = error.message ?? 'is invalid';
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'required' && typeof params['missingProperty'] === 'string') {
      pointer = childPointer(pointer, params['missingProperty']);
      detail = 'is required';
    } else if (error.keyword === 'unevaluatedProperties' && typeof params['unevaluatedProperty'] === 'string') {
      pointer = childPointer(pointer, params['unevaluatedProperty']);
      detail = 'is not a member of this object; remove it';
    } else if (error.keyword === 'additionalProperties' && typeof params['additionalProperty'] === 'string') {
      pointer = childPointer(pointer, params['additionalProperty']);
      detail = 'is not a member of this object; remove it';
    } else if (error.keyword === 'type' && typeof params['type'] === 'string') {
      const numeric = /\b(number|integer)\b/.test(params['type']);
      detail = (numeric ? outOfRange(valueAt(data, pointer)) : undefined) ?? `must be of type ${params['type']}`;
    } else if (error.keyword === 'format' && typeof params['format'] === 'string') {
      detail = `must be a ${params['format']} string`;
    }
    // `allOf` reports the failure of its branch and then itself: the branch says what is wrong.
    if (error.keyword === 'allOf' || error.keyword === 'if') continue;
    const key = `${pointer}\u0000${detail}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push({ pointer, detail, keyword: error.keyword });
  }
  return result;
}

/** The contract compiled at one level. */
export interface CompiledContract {
  level: Level;
  /** The contract document at this level (see `deriveLevel`). */
  document: OpenApiDocument;
  /**
   * The validator of a schema given by a local reference into the document, e.g.
   * `#/components/schemas/LotTransfer`, or of an inline schema object of the document.
   * Compiled on first use and cached: the mock asks for its validators when it builds its request
   * path (`mock/app.ts`), and the validating proxy compiles every body schema when it starts
   * (`mock/proxy/judge.ts`), so none is compiled while a request waits.
   */
  validator(schema: JsonValue): Validator;
  /** The same validator, naming each problem's keyword (for deriving and judging cases, not for answers). */
  keywordValidator(schema: JsonValue): KeywordValidator;
  /** Compiles the given schemas now (fails fast on a bad reference). */
  precompile(schemas: JsonValue[]): void;
  /** How many schemas were compiled so far (what a first use would have to compile is not yet among them). */
  readonly compiledCount: number;
}

function schemaPointer(doc: OpenApiDocument, schema: JsonValue): string | undefined {
  if (isObject(schema) && typeof schema['$ref'] === 'string' && Object.keys(schema).length === 1) return schema['$ref'];
  // An inline schema: find where it stands in the document.
  let found: string | undefined;
  const walk = (node: JsonValue, pointer: string): void => {
    if (found !== undefined) return;
    if (node === schema) {
      found = `#${pointer}`;
      return;
    }
    if (Array.isArray(node)) node.forEach((item, index) => walk(item, childPointer(pointer, index)));
    else if (isObject(node)) for (const [key, value] of Object.entries(node)) walk(value, childPointer(pointer, key));
  };
  walk(doc, '');
  return found;
}

/**
 * Compiles the contract at a level: one ajv instance, all formats asserted (by their RFC grammars,
 * `formats.ts`), all errors collected, every pattern matched in linear time. Throws a ContractProblem
 * (`soundness.ts`) for a contract that cannot be used.
 */
export function compileContract(source: OpenApiDocument, level: Level): CompiledContract {
  // A document read from a file was checked there (and is not checked again); one built in memory is checked here.
  assertSound(source);
  const document = deriveLevel(source, level);
  const extensions = new Set<string>();
  collectExtensionKeywords(document, extensions);
  // The document is not validated against the meta-schema here (costly at every start): `npm test` validates the
  // contract with Spectral and an OpenAPI parser, and strict mode still rejects unknown keywords when compiling.
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    strictRequired: false,
    validateFormats: true,
    discriminator: false,
    validateSchema: false,
    // Patterns are matched in linear time (`patterns.ts`): no value can freeze a validator.
    code: { regExp: linearRegExp },
  });
  addFormats(ajv);
  addRfcFormats(ajv);
  for (const keyword of [...OPENAPI_KEYWORDS, ...extensions]) ajv.addKeyword({ keyword });
  ajv.addSchema(document, CONTRACT_ID);
  type Compiled = { run: Validator; compiled: ValidateFunction };
  const cache = new Map<string, Compiled>();
  // An inline schema (an object of the document) by itself: finding its pointer walks the whole document.
  const byObject = new WeakMap<object, Compiled>();
  const compiledOf = (schema: JsonValue): Compiled => {
    const ref = isObject(schema) && typeof schema['$ref'] === 'string' ? schema['$ref'] : undefined;
    const inline = ref === undefined && typeof schema === 'object' && schema !== null ? schema : undefined;
    const known = inline === undefined ? undefined : byObject.get(inline);
    if (known) return known;
    const pointer = ref ?? schemaPointer(document, schema);
    if (pointer === undefined) throw new Error('the schema is not part of the contract document');
    let entry = cache.get(pointer);
    if (!entry) {
      const compiled: ValidateFunction = ajv.compile({ $ref: `${CONTRACT_ID}${pointer}` });
      const verdicts = new WeakMap<object, readonly FieldError[]>();
      const run: Validator = (value) => {
        if (!isFrozenWhole(value)) return compiled(value) ? NO_ERRORS : toFieldErrors(compiled.errors, value);
        const remembered = verdicts.get(value);
        if (remembered !== undefined) return remembered;
        const errors: readonly FieldError[] = compiled(value) ? NO_ERRORS : toFieldErrors(compiled.errors, value);
        deepFreeze(errors);
        verdicts.set(value, errors);
        return errors;
      };
      entry = { run, compiled };
      cache.set(pointer, entry);
    }
    if (inline !== undefined) byObject.set(inline, entry);
    return entry;
  };
  const validator = (schema: JsonValue): Validator => compiledOf(schema).run;
  return {
    level,
    document,
    validator,
    keywordValidator(schema) {
      const { compiled } = compiledOf(schema);
      return (value) => (compiled(value) ? [] : toKeywordErrors(compiled.errors, value));
    },
    precompile(schemas) {
      for (const schema of schemas) validator(schema);
    },
    get compiledCount() {
      return cache.size;
    },
  };
}
