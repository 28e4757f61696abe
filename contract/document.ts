/**
 * Loading the OpenAPI contract and reading its operations.
 *
 * The runtime reads the bundled JSON (`contract/generated/openapi.json`, produced from
 * `contract/openapi.yaml` by `npm run generate` and checked for drift in `npm test`), so start-up
 * parses no YAML. A YAML path (for example a copy of the contract with an extra operation) is
 * read with the `yaml` package.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { CONTRACT_JSON_PATH } from './paths.js';
import { messageOf } from '../util/errors.js';
import { isObject, resolvePointer, type JsonObject, type JsonValue } from './json-value.js';
import { assertSound } from './soundness.js';
import { isProfileResponse, maxBodyBytesOf } from './extensions.js';

export { isObject, resolvePointer, type JsonObject, type JsonValue } from './json-value.js';

/** An OpenAPI document, kept as plain JSON: the code reads it through the helpers below. */
export type OpenApiDocument = JsonObject;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

const require = createRequire(import.meta.url);

/** Parses YAML; the `yaml` package is loaded on first use only, so the default (JSON) start-up skips it. */
function parseYaml(text: string): unknown {
  const yaml = require('yaml') as typeof Yaml;
  return yaml.parse(text);
}

/** A contract as read from its file: the document, the path it was read from, the SHA-256 of the bytes read. */
export interface ContractFile {
  document: OpenApiDocument;
  /** The path as given (a relative path is read from the current folder). */
  path: string;
  /** SHA-256 of the exact bytes read, lower-case hex: names the contract a report was judged against. */
  sha256: string;
}

/** SHA-256 of bytes or of a text's UTF-8 form, lower-case hex. */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Reads a contract from a `.yaml`, `.yml` or `.json` file, once: the document and the SHA-256 of the
 * very bytes it was parsed from (the one loader of the mock, the proxy and the suite). Throws an Error
 * naming the file on failure: a ContractProblem (`soundness.ts`) when it was read but cannot be used.
 */
export function readContractFile(path: string = CONTRACT_JSON_PATH): ContractFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new Error(`cannot read the contract ${path}: ${messageOf(error)}`, { cause: error });
  }
  const text = bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new Error(`the contract ${path} is not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${messageOf(error)}`, {
      cause: error,
    });
  }
  if (!isObject(parsed) || typeof parsed['openapi'] !== 'string' || !parsed['openapi'].startsWith('3.1')) {
    throw new Error(`the contract ${path} is not an OpenAPI 3.1 document (no "openapi: 3.1.x" member)`);
  }
  assertSound(parsed, `the contract ${path}`);
  return { document: parsed, path, sha256: sha256Hex(bytes) };
}

/** Reads a contract from a `.yaml`, `.yml` or `.json` file (`readContractFile`'s document). Throws an Error naming the file on failure. */
export function readContract(path: string = CONTRACT_JSON_PATH): OpenApiDocument {
  return readContractFile(path).document;
}

/** Follows `$ref` chains of an OpenAPI object (a response, a request body, a parameter). */
export function deref(doc: OpenApiDocument, value: JsonValue | undefined): JsonObject | undefined {
  let node = value;
  for (let depth = 0; depth < 20 && isObject(node) && typeof node['$ref'] === 'string'; depth++) {
    node = resolvePointer(doc, node['$ref']);
  }
  return isObject(node) ? node : undefined;
}

/** `maxBodyBytes` of a response, when it states one. */
function maxBodyOf(response: JsonObject): { maxBodyBytes?: number } {
  const bytes = maxBodyBytesOf(response);
  return bytes !== undefined ? { maxBodyBytes: bytes } : {};
}

export interface ResponseSpec {
  /** The status code as written in the contract ("200", "404", "2XX"). */
  status: string;
  description: string;
  /** Media type → the JSON Schema of the body (a `$ref` object or an inline schema). */
  content: Map<string, JsonObject>;
  /** Media type → the first example value, if any. */
  examples: Map<string, JsonValue>;
  /** Lower-case header names the contract declares for this response. */
  headers: string[];
  /** True when the response is a profile decision (`x-profile: true`). */
  profile: boolean;
  /** `x-max-body-bytes` of a 413 response: the largest request body the operation accepts. */
  maxBodyBytes?: number;
  /** The response's `links` (OpenAPI Link objects, `$ref`s followed), by name. */
  links: Map<string, JsonObject>;
}

/** A parameter of an operation (path-level and operation-level ones merged, `$ref`s followed). */
export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  /** Its schema (a `$ref` object or an inline schema), when it states one. */
  schema?: JsonObject;
}

export interface OperationSpec {
  operationId: string;
  method: HttpMethod;
  /** The path template as written ("/orders/info/{number}"). */
  path: string;
  /** The names of the path parameters, in order. */
  pathParams: string[];
  /** Media type → request body schema (a `$ref` object or an inline schema), and its first example. */
  requestBody?: { required: boolean; content: Map<string, JsonObject>; examples: Map<string, JsonValue> };
  responses: ResponseSpec[];
  /** True when the operation requires a security scheme (operation-level or document-level). */
  secured: boolean;
  /** Its parameters: the path item's, overridden by the operation's own (same name and place). */
  parameters: ParameterSpec[];
  /** The operation object as written (for its `x-` extensions and `security`). */
  raw: JsonObject;
}

function parametersOf(doc: OpenApiDocument, pathItem: JsonObject, operation: JsonObject): ParameterSpec[] {
  const byPlace = new Map<string, ParameterSpec>();
  for (const list of [pathItem['parameters'], operation['parameters']]) {
    if (!Array.isArray(list)) continue;
    for (const value of list) {
      const param = deref(doc, value);
      const place = param?.['in'];
      if (!param || typeof param['name'] !== 'string') continue;
      if (place !== 'path' && place !== 'query' && place !== 'header' && place !== 'cookie') continue;
      byPlace.set(`${place} ${param['name']}`, {
        name: param['name'],
        in: place,
        required: param['required'] === true,
        ...(isObject(param['schema']) ? { schema: param['schema'] } : {}),
      });
    }
  }
  return [...byPlace.values()];
}

function linksOf(doc: OpenApiDocument, response: JsonObject): Map<string, JsonObject> {
  const links = new Map<string, JsonObject>();
  if (isObject(response['links']))
    for (const [name, value] of Object.entries(response['links'])) {
      const link = deref(doc, value);
      if (link) links.set(name, link);
    }
  return links;
}

function firstExample(doc: OpenApiDocument, media: JsonObject): JsonValue | undefined {
  if ('example' in media) return media['example'];
  const examples = media['examples'];
  if (isObject(examples)) {
    for (const value of Object.values(examples)) {
      const example = deref(doc, value);
      if (example && 'value' in example) return example['value'];
    }
  }
  return undefined;
}

/** Lists every operation of the document, in document order. */
export function listOperations(doc: OpenApiDocument): OperationSpec[] {
  const operations: OperationSpec[] = [];
  const paths = isObject(doc['paths']) ? doc['paths'] : {};
  // Secured: at least one alternative, and none of them empty (`{}` lets a request without credentials through).
  const securedBy = (list: unknown): boolean =>
    Array.isArray(list) && list.length > 0 && list.every((r) => isObject(r) && Object.keys(r).length > 0);
  const rootSecurity = securedBy(doc['security']);
  for (const [path, pathItemValue] of Object.entries(paths)) {
    const pathItem = deref(doc, pathItemValue);
    if (!pathItem) continue;
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!isObject(operation)) continue;
      const responses: ResponseSpec[] = [];
      const responsesValue = isObject(operation['responses']) ? operation['responses'] : {};
      for (const [status, responseValue] of Object.entries(responsesValue)) {
        const response = deref(doc, responseValue);
        if (!response) continue;
        const content = new Map<string, JsonObject>();
        const examples = new Map<string, JsonValue>();
        if (isObject(response['content'])) {
          for (const [mediaType, mediaValue] of Object.entries(response['content'])) {
            if (!isObject(mediaValue)) continue;
            if (isObject(mediaValue['schema'])) content.set(mediaType, mediaValue['schema']);
            const example = firstExample(doc, mediaValue);
            if (example !== undefined) examples.set(mediaType, example);
          }
        }
        responses.push({
          status,
          description: typeof response['description'] === 'string' ? response['description'] : '',
          content,
          examples,
          headers: isObject(response['headers']) ? Object.keys(response['headers']).map((h) => h.toLowerCase()) : [],
          profile: isProfileResponse(response),
          ...maxBodyOf(response),
          links: linksOf(doc, response),
        });
      }
      let requestBody: OperationSpec['requestBody'];
      const body = deref(doc, operation['requestBody']);
      if (body && isObject(body['content'])) {
        const content = new Map<string, JsonObject>();
        const examples = new Map<string, JsonValue>();
        for (const [mediaType, mediaValue] of Object.entries(body['content'])) {
          if (!isObject(mediaValue)) continue;
          if (isObject(mediaValue['schema'])) content.set(mediaType, mediaValue['schema']);
          const example = firstExample(doc, mediaValue);
          if (example !== undefined) examples.set(mediaType, example);
        }
        requestBody = { required: body['required'] === true, content, examples };
      }
      const security = operation['security'];
      operations.push({
        operationId: typeof operation['operationId'] === 'string' ? operation['operationId'] : `${method} ${path}`,
        method,
        path,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? ''),
        ...(requestBody ? { requestBody } : {}),
        responses,
        secured: Array.isArray(security) ? securedBy(security) : rootSecurity,
        parameters: parametersOf(doc, pathItem, operation),
        raw: operation,
      });
    }
  }
  return operations;
}
