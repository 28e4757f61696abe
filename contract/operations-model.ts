/**
 * THE operations model: everything code outside `contract/` needs to know about the API (paths,
 * methods, parameters, security, request members, required, read-only, defaults, bounds, success
 * statuses, the resources and the operations acting on them, the links between an order-info answer
 * and the create bodies), derived once from the contract document. `conformance/`, `judgments/`,
 * `mock/` and `bench/` read it and never re-type a path or a member name.
 */
import { isObject, listOperations, type JsonObject, type JsonValue, type OpenApiDocument, type OperationSpec } from './document.js';
import type {
  BodyShape,
  CreateOperationId,
  OperationId,
  OperationModel,
  OrderLinks,
  OrderList,
  ParamModel,
  ResourceModel,
} from './model-types.js';
import { checkMarkers, ExtensionError, schemaExtensions, type ExtensionSite } from './extensions.js';
import { recordModelOf, recordRolesOf } from './record-rules.js';
import { findResources, resourceName } from './resources.js';
import { inlineSchema, membersOf, rawProperties, refName, SCHEMA_PREFIX } from './schema-walk.js';
import { operationSecurity, securitySchemes } from './security.js';
import { escapeToken } from '../util/json-pointer.js';

export type * from './model-types.js';
export { ExtensionError } from './extensions.js';
export { inlineSchema } from './schema-walk.js';
export { ResourceError, resourceName } from './resources.js';

export interface OperationsModel {
  /** Every operation of the contract, in contract order. */
  operations: OperationModel[];
  /** The resources and the operations acting on each (`resources.ts`). */
  resources: ResourceModel[];
  /** The read of an order served from fixtures whose lots the creates name, when the contract has one. */
  orderInfo?: OperationModel;
  /** The operations that create records, in contract order. */
  creates: OperationModel[];
  /** The operation ids of the creates, in contract order. */
  createIds: CreateOperationId[];
  /** How the order answer links to the create bodies, when creates name its lots. */
  order?: OrderLinks;
  /** The component name of the error body (`Problem`) and of the validation error body (`ValidationProblem`), when the contract has them. */
  problemSchema?: string;
  validationProblemSchema?: string;
  /** The member of a validation problem listing the problems (`errors`) and of each entry naming the member (`pointer`). */
  errorsMember?: string;
  pointerMember?: string;
  get(id: OperationId): OperationModel;
  /** The operation is a create. */
  isCreate(id: OperationId): id is CreateOperationId;
  create(id: CreateOperationId): OperationModel;
  /** The resource an operation acts on (throws for one without). */
  resourceOf(id: OperationId): ResourceModel;
  /** The resource of a name. */
  resource(name: string): ResourceModel;
  /** The path of an operation with its parameters URL-encoded. */
  pathOf(id: OperationId, params?: Record<string, string>): string;
}

/** A model whose contract has the order read (the bundled one has it). */
export type OrderedModel = OperationsModel & { orderInfo: OperationModel; order: OrderLinks };

/** The model, required to have the order read (throws otherwise). */
export function withOrder(model: OperationsModel): OrderedModel {
  const { orderInfo, order } = model;
  if (orderInfo === undefined || order === undefined)
    throw new Error('the contract does not state a read of an order whose lots the creates name');
  return { ...model, orderInfo, order };
}

/** The order read, which the model requires of a contract (the bundled one has it). */
export function orderRead(model: OperationsModel): { op: OperationModel; links: OrderLinks } {
  if (model.orderInfo === undefined || model.order === undefined)
    throw new Error('the contract does not state a read of an order whose lots the creates name');
  return { op: model.orderInfo, links: model.order };
}

/**
 * A create's resource name, under which the mock keeps and lists its records (`/__mock/<resource>`):
 * its success schema's name in kebab case, plural (`LotTransfer` → `lot-transfers`).
 */
export function resourceOf(op: Pick<OperationModel, 'successSchema' | 'resource'>): string {
  return op.resource ?? resourceName(op.successSchema ?? '');
}

function maxBody(responses: readonly { maxBodyBytes?: number }[]): { maxBodyBytes?: number } {
  const found = responses.find((r) => r.maxBodyBytes !== undefined)?.maxBodyBytes;
  return found !== undefined ? { maxBodyBytes: found } : {};
}

function fail(what: string): never {
  throw new Error(`the contract does not state ${what}`);
}

/** A JSON media type of a content map: `application/json` first, else the first `+json` or `json` one. */
function jsonMedia(content: ReadonlyMap<string, unknown>): string | undefined {
  if (content.has('application/json')) return 'application/json';
  return [...content.keys()].find((m) => /[/+]json(\s*;|$)/i.test(m));
}

const pointerOf = (...parts: string[]): string => `#${parts.map((p) => `/${escapeToken(p)}`).join('')}`;

/** What a success answer's body is, read from its JSON schema. */
function shapeOf(doc: OpenApiDocument, schema: JsonValue | undefined): BodyShape {
  if (schema === undefined) return { kind: 'none' };
  const named = refName(schema);
  if (named !== undefined) {
    const inlined = inlineSchema(doc, schema);
    if (inlined['type'] === 'array') {
      const item = refName(isObject(schema) && typeof schema['$ref'] === 'string' ? rawSchema(doc, named)?.['items'] : undefined);
      return item !== undefined ? { kind: 'array', item } : { kind: 'other' };
    }
    const page = pageOf(doc, rawProperties(doc, named));
    return page ?? { kind: 'object', schema: named };
  }
  if (!isObject(schema)) return { kind: 'other' };
  if (schema['type'] === 'array') {
    const item = refName(schema['items']);
    return item !== undefined ? { kind: 'array', item } : { kind: 'other' };
  }
  if (isObject(schema['properties'])) return pageOf(doc, schema['properties']) ?? { kind: 'other' };
  return { kind: 'other' };
}

/** A page: an object with exactly one array member of a named object schema, the rest scalars (a total, a cursor). */
function pageOf(doc: OpenApiDocument, props: Record<string, JsonValue>): BodyShape | undefined {
  const arrays = Object.entries(props).filter(([, s]) => inlineSchema(doc, s)['type'] === 'array');
  if (arrays.length !== 1) return undefined;
  const [member, schema] = arrays[0] ?? ['', null];
  const raw = isObject(schema) && typeof schema['$ref'] === 'string' ? rawSchema(doc, refName(schema) ?? '') : schema;
  const item = refName(isObject(raw) ? raw['items'] : undefined);
  if (item === undefined) return undefined;
  const others = Object.entries(props)
    .filter(([name]) => name !== member)
    .map(([name, s]) => ({ name, type: typeOfSchema(inlineSchema(doc, s)) || undefined }));
  const scalars = others.every((o) => o.type !== 'object' && o.type !== 'array');
  return scalars ? { kind: 'page', member, item, others } : undefined;
}

/** A schema's `type` when it is one string. */
const typeOfSchema = (schema: JsonObject): string => (typeof schema['type'] === 'string' ? schema['type'] : '');

function rawSchema(doc: OpenApiDocument, name: string): Record<string, JsonValue> | undefined {
  const components = isObject(doc['components']) ? doc['components'] : {};
  const schemas = isObject(components['schemas']) ? components['schemas'] : {};
  const value = schemas[name];
  return isObject(value) ? value : undefined;
}

/** The schema of the records an `x-default-from` resource names (`lot` → `Lot`). */
const recordSchema = (resource: string): string => `${resource.charAt(0).toUpperCase()}${resource.slice(1)}`;

/**
 * Every `x-default-from` names a member of one kind of record the contract has a schema for (the lot
 * the creates name): else an ExtensionError naming the one that does not.
 */
function checkDefaultsFrom(doc: OpenApiDocument, sites: readonly ExtensionSite[]): void {
  const schemas = isObject(doc['components']) && isObject(doc['components']['schemas']) ? doc['components']['schemas'] : {};
  let first: { pointer: string; resource: string } | undefined;
  for (const site of sites) {
    if (site.defaultFrom === undefined) continue;
    const { resource, member } = site.defaultFrom;
    const pointer = `${site.pointer}/x-default-from`;
    const schema = recordSchema(resource);
    if (first !== undefined && first.resource !== resource)
      throw new ExtensionError(
        pointer,
        `x-default-from reads "${resource}" records, but ${first.pointer} reads "${first.resource}" records: a default read from another record reads the lot a create names, one kind of record, so write ${first.resource}.<member>`,
      );
    first ??= { pointer, resource };
    if (!isObject(schemas[schema]))
      throw new ExtensionError(
        pointer,
        `x-default-from reads "${resource}" records, but the contract has no schema ${schema} for them: write the record's schema name with a lower-case first letter ("lot" for Lot), then its member`,
      );
    const members = Object.keys(rawProperties(doc, schema));
    if (!members.includes(member))
      throw new ExtensionError(
        pointer,
        `x-default-from reads the member "${member}" of ${schema}, which has no such member${members.length > 0 ? ` (it has ${members.join(', ')})` : ''}: write one of its members`,
      );
  }
}

/** The lot link: the resource `x-default-from: <resource>.<member>` names, and the lot-id schema members naming a lot refer to. */
function lotLink(
  doc: OpenApiDocument,
  specs: readonly OperationSpec[],
): { lotSchema: string; lotIdSchema?: string; from: { resource: string; member: string } } | undefined {
  const components = isObject(doc['components']) ? doc['components'] : {};
  const schemas = isObject(components['schemas']) ? components['schemas'] : {};
  for (const spec of specs) {
    const media = spec.requestBody !== undefined ? jsonMedia(spec.requestBody.content) : undefined;
    const schema = media !== undefined ? spec.requestBody?.content.get(media) : undefined;
    const name = refName(schema);
    if (name === undefined) continue;
    const found = membersOf(doc, `${SCHEMA_PREFIX}${name}`, undefined).find((m) => m.defaultFrom)?.defaultFrom;
    if (found === undefined) continue;
    const lotSchema = recordSchema(found.resource);
    // The lot-id schema: the integer schema named after the lot (`LotId`), which the members naming a lot refer to.
    const lotIdSchema = Object.keys(schemas).find(
      (n) => n !== lotSchema && n.startsWith(lotSchema) && isObject(schemas[n]) && schemas[n]['type'] === 'integer',
    );
    return { lotSchema, from: found, ...(lotIdSchema !== undefined ? { lotIdSchema } : {}) };
  }
  return undefined;
}

/** The operation model of one listed operation (role `other` until `findResources` gives it one). */
function operationOf(
  doc: OpenApiDocument,
  spec: OperationSpec,
  schemes: ReturnType<typeof securitySchemes>,
  lotIdSchema: string | undefined,
): OperationModel {
  const success = spec.responses.find((r) => /^2(\d\d|XX)$/i.test(r.status));
  const successStatus = success === undefined ? 200 : /^\d+$/.test(success.status) ? Number(success.status) : 200;
  const successMedia = success !== undefined ? jsonMedia(success.content) : undefined;
  const successBody = successMedia !== undefined ? success?.content.get(successMedia) : undefined;
  const shape =
    success === undefined || success.content.size === 0
      ? ({ kind: 'none' } as const)
      : successMedia === undefined
        ? ({ kind: 'other' } as const)
        : shapeOf(doc, successBody);
  const requestMediaType = spec.requestBody !== undefined ? jsonMedia(spec.requestBody.content) : undefined;
  const requestBody = requestMediaType !== undefined ? spec.requestBody?.content.get(requestMediaType) : undefined;
  const requestSchema = refName(requestBody);
  const requestRef =
    requestBody === undefined
      ? undefined
      : requestSchema !== undefined
        ? `${SCHEMA_PREFIX}${requestSchema}`
        : pointerOf('paths', spec.path, spec.method, 'requestBody', 'content', requestMediaType ?? '', 'schema');
  // An operation's own request body may be a `$ref` to components.requestBodies: point at the schema where it stands.
  const requestRefResolved =
    requestRef !== undefined &&
    requestSchema === undefined &&
    isObject(spec.raw['requestBody']) &&
    typeof spec.raw['requestBody']['$ref'] === 'string'
      ? `${spec.raw['requestBody']['$ref']}/content/${escapeToken(requestMediaType ?? '')}/schema`
      : requestRef;
  const requestExample = requestMediaType !== undefined ? spec.requestBody?.examples.get(requestMediaType) : undefined;
  const successExample = successMedia !== undefined ? success?.examples.get(successMedia) : undefined;
  const security = operationSecurity(doc, schemes, spec.raw, spec.path, spec.method);
  const itemSchema = shape.kind === 'object' ? shape.schema : shape.kind === 'array' || shape.kind === 'page' ? shape.item : undefined;
  const params: ParamModel[] = spec.parameters
    .filter((p) => p.in === 'path' || p.in === 'query')
    .map((p) => {
      const schema = p.schema !== undefined ? inlineSchema(doc, p.schema) : {};
      return {
        name: p.name,
        in: p.in,
        required: p.required || p.in === 'path',
        schema,
        type: typeof schema['type'] === 'string' ? schema['type'] : undefined,
      };
    });
  return {
    operationId: spec.operationId,
    method: spec.method.toUpperCase(),
    path: spec.path,
    pathParams: spec.pathParams,
    params,
    security,
    secured: security.secured,
    successStatus,
    success: shape,
    ...(shape.kind === 'object' ? { successSchema: shape.schema } : {}),
    ...(requestSchema !== undefined ? { requestSchema } : {}),
    ...(requestRefResolved !== undefined ? { requestRef: requestRefResolved } : {}),
    ...(requestMediaType !== undefined ? { requestMediaType } : {}),
    members: requestRefResolved !== undefined ? membersOf(doc, requestRefResolved, lotIdSchema) : [],
    successMembers: itemSchema !== undefined ? membersOf(doc, `${SCHEMA_PREFIX}${itemSchema}`, lotIdSchema) : [],
    errorStatuses: spec.responses.filter((r) => /^[45]\d\d$/.test(r.status)).map((r) => Number(r.status)),
    ...maxBody(spec.responses),
    ...(requestExample !== undefined ? { requestExample } : {}),
    ...(successExample !== undefined ? { successExample } : {}),
    role: 'other',
  };
}

/** How the order answer links to the create bodies, when a fixture read answers lots the creates name. */
function orderLinks(
  doc: OpenApiDocument,
  orderInfo: OperationModel,
  lot: NonNullable<ReturnType<typeof lotLink>>,
  lotIdSchema: string | undefined,
): OrderLinks {
  const { lotSchema, from } = lot;
  const infoProps = rawProperties(doc, orderInfo.successSchema ?? '');
  const lotsMember =
    Object.entries(infoProps).find(([, s]) => isObject(s) && refName(s['items']) === lotSchema)?.[0] ??
    fail(`a list of ${lotSchema} in ${orderInfo.successSchema ?? 'the order answer'}`);
  const numberParam = orderInfo.keyParam ?? fail('the order number parameter');
  // The order header: the member whose schema has a property `<header><Param>` (`order` + `Number`).
  let orderMember: string | undefined;
  let orderNumberMember: string | undefined;
  for (const [name, schema] of Object.entries(infoProps)) {
    const ref = refName(schema);
    if (ref === undefined) continue;
    const wanted = `${name}${numberParam.charAt(0).toUpperCase()}${numberParam.slice(1)}`;
    if (wanted in rawProperties(doc, ref)) {
      orderMember = name;
      orderNumberMember = wanted;
    }
  }
  const lists = Object.entries(infoProps).flatMap(([member, schema]): OrderList[] => {
    const itemSchema = isObject(schema) && schema['type'] === 'array' ? refName(schema['items']) : undefined;
    return itemSchema !== undefined ? [{ member, itemSchema, members: membersOf(doc, `${SCHEMA_PREFIX}${itemSchema}`, lotIdSchema) }] : [];
  });
  const lotProps = rawProperties(doc, lotSchema);
  const lotIdMember = 'id' in lotProps ? 'id' : fail(`an id of ${lotSchema}`);
  if (!(from.member in lotProps)) fail(`${lotSchema}.${from.member}`);
  return {
    numberParam,
    orderMember: orderMember ?? fail('the order header of the order-info answer'),
    orderNumberMember: orderNumberMember ?? fail('the order number member of the order header'),
    lotsMember,
    lotIdMember,
    lotNumberMember: from.member,
    lotSchema,
    lotResource: from.resource,
    headerMembers: membersOf(
      doc,
      `${SCHEMA_PREFIX}${refName(infoProps[orderMember ?? '']) ?? fail('the order header of the order-info answer')}`,
      lotIdSchema,
    ),
    lists,
  };
}

/** The error bodies: `Problem`-like and `ValidationProblem`-like schemas, read from the documented 4xx answers. */
function problemSchemas(
  doc: OpenApiDocument,
): Pick<OperationsModel, 'problemSchema' | 'validationProblemSchema' | 'errorsMember' | 'pointerMember'> {
  const components = isObject(doc['components']) ? doc['components'] : {};
  const schemas = isObject(components['schemas']) ? components['schemas'] : {};
  const out: Pick<OperationsModel, 'problemSchema' | 'validationProblemSchema' | 'errorsMember' | 'pointerMember'> = {};
  if ('Problem' in schemas) out.problemSchema = 'Problem';
  if (!('ValidationProblem' in schemas)) return out;
  const vpProps = rawProperties(doc, 'ValidationProblem');
  const errorsMember = Object.keys(vpProps).find((k) => isObject(vpProps[k]) && vpProps[k]['type'] === 'array');
  if (errorsMember === undefined) return out;
  const errorsItems = isObject(vpProps[errorsMember]) ? refName(vpProps[errorsMember]['items']) : undefined;
  const pointerMember = Object.entries(errorsItems !== undefined ? rawProperties(doc, errorsItems) : {}).find(
    ([, s]) => isObject(s) && s['format'] === 'json-pointer',
  )?.[0];
  if (pointerMember === undefined) return out;
  return { ...out, validationProblemSchema: 'ValidationProblem', errorsMember, pointerMember };
}

/** Derives the operations model from the contract document (the strict level: the whole contract). */
export function operationsModel(doc: OpenApiDocument): OperationsModel {
  const specs = listOperations(doc);
  if (specs.length === 0) fail('any operation (its paths hold none)');
  checkMarkers(doc);
  checkDefaultsFrom(doc, schemaExtensions(doc));
  const schemes = securitySchemes(doc);
  const lot = lotLink(doc, specs);
  const lotIdSchema = lot?.lotIdSchema;
  const operations = specs.map((spec) => operationOf(doc, spec, schemes, lotIdSchema));
  const resources = findResources(doc, operations, new Map(specs.map((spec) => [spec.operationId, spec])), lotIdSchema);
  for (const op of operations) {
    if (op.role !== 'create') continue;
    op.recordModel = recordModelOf(op);
    const roles = recordRolesOf(op.recordModel);
    if (roles !== undefined) op.record = roles;
  }
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  const byResource = new Map(resources.map((r) => [r.name, r]));
  const creates = operations.filter((op) => op.role === 'create');
  // The order: the fixture read whose answer lists the lots the creates name.
  const orderInfo =
    lot === undefined
      ? undefined
      : operations.find(
          (op) =>
            op.role === 'fixture-read' &&
            Object.values(rawProperties(doc, op.successSchema ?? '')).some((s) => isObject(s) && refName(s['items']) === lot.lotSchema),
        );
  if (lot !== undefined && orderInfo === undefined)
    fail(
      `a read of records served from fixtures (a GET on .../{key} that no create answers) whose answer lists the ${lot.lotSchema} that x-default-from: ${lot.from.resource}.${lot.from.member} names`,
    );
  const order = orderInfo !== undefined && lot !== undefined ? orderLinks(doc, orderInfo, lot, lotIdSchema) : undefined;
  const get = (id: OperationId): OperationModel => byId.get(id) ?? fail(`the operation ${id}`);
  return {
    operations,
    resources,
    ...(orderInfo !== undefined ? { orderInfo } : {}),
    creates,
    createIds: creates.map((op) => op.operationId),
    ...(order !== undefined ? { order } : {}),
    ...problemSchemas(doc),
    get,
    isCreate(id: OperationId): id is CreateOperationId {
      return creates.some((op) => op.operationId === id);
    },
    create(id) {
      const op = get(id);
      if (op.role !== 'create') fail(`${id} as a create operation`);
      return op;
    },
    resourceOf(id) {
      const name = get(id).resource;
      return (name !== undefined ? byResource.get(name) : undefined) ?? fail(`a resource of ${id}`);
    },
    resource(name) {
      return byResource.get(name) ?? fail(`the resource ${name}`);
    },
    pathOf(id, params = {}) {
      return get(id).path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
    },
  };
}
