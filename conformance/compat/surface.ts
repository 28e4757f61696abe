/**
 * What a contract promises, per operation, in the form two contracts are compared on: the operation's
 * place (method, path), its security, its statuses, its request body and its success body, each fact
 * with its JSON Pointer in the document and its level. Read with the contract's own operation listing
 * (`listOperations`) and the operations model's reading of schemas, never with a second parser.
 */
import { deref, isObject, listOperations, type OpenApiDocument } from '../../contract/document.js';
import { profileKeywords, specStatusOf } from '../../contract/extensions.js';
import { operationsModel } from '../../contract/operations-model.js';
import type { OperationSecurity } from '../../contract/security.js';
import { childPointer } from '../../util/json-pointer.js';
import { locateSchema, type Located, type SchemaFacts } from './located.js';

export interface StatusFact {
  /** As written (`201`, `404`); a success marked `x-spec-status` is a profile decision. */
  status: string;
  pointer: string;
  profile: boolean;
}

export interface OperationSurface {
  operationId: string;
  /** Upper case. */
  method: string;
  path: string;
  /** The operation object's pointer (`/paths/~1orders~1{number}/get`). */
  pointer: string;
  /** Its security as the operations model reads it (`contract/security.ts`), and where it is written. */
  security: SecuritySurface;
  successes: StatusFact[];
  errors: StatusFact[];
  /** The largest request body accepted (`x-max-body-bytes` of a documented 413). */
  maxBodyBytes?: Located;
  request?: { required: Located; mediaTypes: string[]; pointer: string; schema?: SchemaFacts };
  /** The body of the first success response (`application/json`). */
  answer?: SchemaFacts;
}

export interface SecuritySurface {
  model: OperationSecurity;
  /** Where the requirements are written (the operation's `security`, else `/security`), or the operation when neither states any. */
  pointer: string;
  /** The object holding the requirements lists `security` in its `x-profile`: a profile decision. */
  profile: boolean;
}

const JSON_MEDIA = 'application/json';

/** The pointer of what a `$ref` object names, or the object's own pointer. */
function targetPointer(value: unknown, own: string): string {
  return isObject(value) && typeof value['$ref'] === 'string' && value['$ref'].startsWith('#')
    ? decodeURIComponent(value['$ref'].slice(1))
    : own;
}

/** The surface of every operation of the contract, keyed by operationId. */
export function contractSurface(doc: OpenApiDocument): Map<string, OperationSurface> {
  const surfaces = new Map<string, OperationSurface>();
  const paths = isObject(doc['paths']) ? doc['paths'] : {};
  const model = operationsModel(doc);
  for (const spec of listOperations(doc)) {
    const pathItem = deref(doc, paths[spec.path]);
    const operation = pathItem?.[spec.method];
    if (!isObject(operation)) continue;
    const pointer = childPointer(childPointer('/paths', spec.path), spec.method);
    const statusFact = (status: string, profile: boolean): StatusFact => {
      const raw = isObject(operation['responses']) ? operation['responses'][status] : undefined;
      return { status, pointer: targetPointer(raw, childPointer(childPointer(pointer, 'responses'), status)), profile };
    };
    const successes: StatusFact[] = [];
    const errors: StatusFact[] = [];
    let answer: SchemaFacts | undefined;
    let maxBodyBytes: Located | undefined;
    for (const response of spec.responses) {
      const raw = isObject(operation['responses']) ? operation['responses'][response.status] : undefined;
      if (/^2/.test(response.status)) {
        successes.push(statusFact(response.status, isObject(raw) && specStatusOf(raw) !== undefined));
        const schema = response.content.get(JSON_MEDIA);
        if (answer === undefined && schema !== undefined) {
          const at = childPointer(childPointer(childPointer(statusFact(response.status, false).pointer, 'content'), JSON_MEDIA), 'schema');
          answer = locateSchema(doc, schema, at);
        }
      } else {
        const fact = statusFact(response.status, response.profile);
        errors.push(fact);
        if (response.maxBodyBytes !== undefined) {
          maxBodyBytes = {
            value: response.maxBodyBytes,
            pointer: childPointer(fact.pointer, 'x-max-body-bytes'),
            profile: response.profile,
          };
        }
      }
    }
    const security = model.get(spec.operationId).security;
    // The object the requirements are written on marks them as a profile decision (`x-profile: [security]`).
    const holder = security.pointer === undefined ? undefined : security.pointer === '/security' ? doc : operation;
    let request: OperationSurface['request'];
    if (spec.requestBody) {
      const rawBody = operation['requestBody'];
      const bodyPointer = targetPointer(rawBody, childPointer(pointer, 'requestBody'));
      const schema = spec.requestBody.content.get(JSON_MEDIA);
      request = {
        required: { value: spec.requestBody.required, pointer: childPointer(bodyPointer, 'required'), profile: false },
        mediaTypes: [...spec.requestBody.content.keys()].sort(),
        pointer: bodyPointer,
        ...(schema !== undefined
          ? { schema: locateSchema(doc, schema, childPointer(childPointer(childPointer(bodyPointer, 'content'), JSON_MEDIA), 'schema')) }
          : {}),
      };
    }
    surfaces.set(spec.operationId, {
      operationId: spec.operationId,
      method: spec.method.toUpperCase(),
      path: spec.path,
      pointer,
      security: {
        model: security,
        pointer: security.pointer ?? pointer,
        profile: holder !== undefined && profileKeywords(holder).has('security'),
      },
      successes,
      errors,
      ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
      ...(request !== undefined ? { request } : {}),
      ...(answer !== undefined ? { answer } : {}),
    });
  }
  return surfaces;
}
