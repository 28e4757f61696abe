/**
 * THE operations model: everything code outside `contract/` needs to know about the API (paths,
 * methods, request members, required, read-only, defaults, bounds, success statuses, the links
 * between an order-info answer and the create bodies), derived once from the contract document.
 * `conformance/`, `judgments/`, `mock/proxy/` (and later the rest of `mock/`, `bench/`) read it and
 * never re-type a path or a member name.
 */
import { deref, isObject, listOperations, type JsonObject, type JsonValue, type OpenApiDocument } from './document.js';
import type { operations } from './generated/types.js';

export type OperationId = keyof operations;
export type CreateOperationId = Exclude<OperationId, 'getOrderInfo'>;

/** A bound a member's schema states (`minimum`, `exclusiveMinimum`, `maxLength`, ...). */
export interface Bound {
  keyword: 'minimum' | 'exclusiveMinimum' | 'maximum' | 'exclusiveMaximum' | 'minLength' | 'maxLength';
  value: number;
}

export interface MemberModel {
  name: string;
  /** The member's schema, `$ref`s inlined and `allOf` merged, `x-` keywords dropped. */
  schema: JsonObject;
  /** The JSON Schema type (`string`, `integer`, `number`, `boolean`, ...). */
  type: string | undefined;
  /** The JSON Schema format (`date`, `date-time`, ...), when the schema states one. */
  format?: string;
  required: boolean;
  /** Server-assigned (`readOnly`): values a client sends are ignored. */
  readOnly: boolean;
  /** `default` (profile), when the schema states one. */
  default?: JsonValue;
  /** `x-default-from`, e.g. `lot.lotNumber`: the default is read from the named lot's member. */
  defaultFrom?: { resource: string; member: string };
  /** `x-default-sequence`: the default is generated, unique (`prefix` + zero-padded number). */
  defaultSequence?: { prefix: string; width: number };
  bounds: Bound[];
  /** The member names a lot (its schema is the contract's lot-id schema). */
  namesLot: boolean;
}

export interface OperationModel {
  operationId: OperationId;
  /** Upper case, as sent. */
  method: string;
  /** The path template, e.g. `/manualProduction/rest/v1/orders/info/{number}`. */
  path: string;
  pathParams: string[];
  secured: boolean;
  /** The success status of the profile (`200`, `201`). */
  successStatus: number;
  /** The component name of the success body (`OrderInfo`, `LotTransfer`, `TestSample`). */
  successSchema: string;
  /** The component name of the request body schema, for operations with a body. */
  requestSchema?: string;
  /** The request body's members (empty without a body), in contract order. */
  members: MemberModel[];
  /** The success body's members, in contract order (a create: the record as answered). */
  successMembers: MemberModel[];
  /** A create's record roles, read from its success body (creates only). */
  record?: RecordRoles;
  /** Error statuses the contract documents for the operation (strict level). */
  errorStatuses: number[];
  /** The largest request body accepted (`x-max-body-bytes` of its documented 413), when stated. */
  maxBodyBytes?: number;
  /** The contract's first example of the JSON request body, when it gives one. */
  requestExample?: JsonValue;
  /** The contract's first example of the JSON success body, when it gives one. */
  successExample?: JsonValue;
}

/** What the members of a created record stand for (read from the schemas, never from names). */
export interface RecordRoles {
  /** The member the server numbers: the success body's `readOnly` integer (`id`). */
  idMember: string;
  /** The member stamped with the time of the create: the first `readOnly` date-time (`created`), when there is one. */
  createdMember?: string;
  /** The request member naming a lot (`fk_lot_id`), when there is one. */
  lotMember?: string;
}

/** A list in the order-info answer (`containers`, `charges`, `lots`): its member and its items' members. */
export interface OrderList {
  /** The member of the answer holding the list (`charges`). */
  member: string;
  /** The component name of an item (`Charge`). */
  itemSchema: string;
  /** The item's members as the contract states them, in contract order (empty for an open object such as `Container`). */
  members: MemberModel[];
}

/** How an order-info answer links to the create bodies (all read from the contract). */
export interface OrderLinks {
  /** The path parameter carrying the order number (`number`). */
  numberParam: string;
  /** The member of the answer holding the order header (`order`). */
  orderMember: string;
  /** The member of the order header equal to the requested number (`orderNumber`). */
  orderNumberMember: string;
  /** The member of the answer listing the lots (`lots`). */
  lotsMember: string;
  /** The lot's id member (`id`) and number member (`lotNumber`). */
  lotIdMember: string;
  lotNumberMember: string;
  /** The component name of a lot (`Lot`). */
  lotSchema: string;
  /** The resource `x-default-from: <resource>.<member>` names for a lot (`lot`). */
  lotResource: string;
  /** The order header's members (`id`, `orderNumber`, ...), in contract order. */
  headerMembers: MemberModel[];
  /** Every list of the answer whose items are a named schema, in contract order (`containers`, `charges`, `lots`). */
  lists: OrderList[];
}

export interface OperationsModel {
  operations: OperationModel[];
  orderInfo: OperationModel;
  creates: OperationModel[];
  /** The operation ids of the creates, in contract order. */
  createIds: CreateOperationId[];
  order: OrderLinks;
  /** The component name of the error body (`Problem`) and of the validation error body (`ValidationProblem`). */
  problemSchema: string;
  validationProblemSchema: string;
  /** The member of a validation problem listing the problems (`errors`) and of each entry naming the member (`pointer`). */
  errorsMember: string;
  pointerMember: string;
  get(id: OperationId): OperationModel;
  /** The operation is a create (a POST with a request body). */
  isCreate(id: OperationId): id is CreateOperationId;
  create(id: CreateOperationId): OperationModel;
  /** The path of an operation with its parameters URL-encoded. */
  pathOf(id: OperationId, params?: Record<string, string>): string;
}

/**
 * A create's resource name, under which the mock keeps and lists its records (`/__mock/<resource>`):
 * its success schema's name in kebab case, plural (`LotTransfer` → `lot-transfers`).
 */
export function resourceOf(op: OperationModel): string {
  return `${op.successSchema.replace(/(?<=[a-z0-9])([A-Z])/g, '-$1').toLowerCase()}s`;
}

const SCHEMA_PREFIX = '#/components/schemas/';
/** Keywords whose value is one subschema (inlined like `properties`). */
const SUBSCHEMA_KEYWORDS = new Set(['items', 'not', 'contains', 'additionalProperties', 'unevaluatedProperties', 'propertyNames']);

/** Resolves every `$ref` and merges `allOf` parts into one schema object; drops `x-` keywords. */
export function inlineSchema(doc: OpenApiDocument, schema: JsonValue, depth = 0): JsonObject {
  if (depth > 20) return {};
  const node = deref(doc, schema) ?? {};
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' || key === 'allOf' || key === 'examples' || key === 'description') continue;
    if (key.startsWith('x-') && key !== 'x-default-from' && key !== 'x-default-sequence') continue;
    if (key === 'properties' && isObject(value)) {
      const props: JsonObject = {};
      for (const [name, sub] of Object.entries(value)) props[name] = inlineSchema(doc, sub, depth + 1);
      out[key] = props;
    } else if (SUBSCHEMA_KEYWORDS.has(key) && isObject(value)) {
      out[key] = inlineSchema(doc, value, depth + 1);
    } else if ((key === 'oneOf' || key === 'anyOf' || key === 'prefixItems') && Array.isArray(value)) {
      out[key] = value.map((part) => inlineSchema(doc, part, depth + 1));
    } else {
      out[key] = value;
    }
  }
  if (Array.isArray(node['allOf'])) {
    for (const part of node['allOf']) {
      const merged = inlineSchema(doc, part, depth + 1);
      for (const [key, value] of Object.entries(merged)) {
        if (key === 'properties' && isObject(value)) out[key] = { ...(isObject(out[key]) ? out[key] : {}), ...value };
        else if (key === 'required' && Array.isArray(value))
          out[key] = [...new Set([...(Array.isArray(out[key]) ? out[key] : []), ...value])];
        else if (!(key in out)) out[key] = value;
      }
    }
  }
  return out;
}

/** The component name a schema refers to (`{ $ref: '#/components/schemas/Lot' }` → `Lot`), following `allOf` of one part. */
function refName(schema: JsonValue | undefined): string | undefined {
  if (!isObject(schema)) return undefined;
  if (typeof schema['$ref'] === 'string' && schema['$ref'].startsWith(SCHEMA_PREFIX)) return schema['$ref'].slice(SCHEMA_PREFIX.length);
  if (Array.isArray(schema['allOf']) && schema['allOf'].length === 1) return refName(schema['allOf'][0]);
  return undefined;
}

/** The raw (not inlined) property schemas of a component, `allOf` parts included. */
function rawProperties(doc: OpenApiDocument, name: string, depth = 0): Record<string, JsonValue> {
  const node = deref(doc, { $ref: `${SCHEMA_PREFIX}${name}` });
  if (!node || depth > 10) return {};
  let out: Record<string, JsonValue> = {};
  if (Array.isArray(node['allOf'])) {
    for (const part of node['allOf']) {
      const ref = refName(part);
      if (ref !== undefined) out = { ...out, ...rawProperties(doc, ref, depth + 1) };
    }
  }
  return { ...out, ...(isObject(node['properties']) ? node['properties'] : {}) };
}

function boundsOf(schema: JsonObject): Bound[] {
  const keywords: Bound['keyword'][] = ['minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum', 'minLength', 'maxLength'];
  return keywords.flatMap((keyword) => (typeof schema[keyword] === 'number' ? [{ keyword, value: schema[keyword] }] : []));
}

function maxBody(responses: readonly { maxBodyBytes?: number }[]): { maxBodyBytes?: number } {
  const found = responses.find((r) => r.maxBodyBytes !== undefined)?.maxBodyBytes;
  return found !== undefined ? { maxBodyBytes: found } : {};
}

/** A create's record roles: the `readOnly` integer it numbers, the first `readOnly` date-time, the request member naming a lot. */
function recordRoles(op: OperationModel): RecordRoles | undefined {
  const assigned = op.successMembers.filter((m) => m.readOnly);
  const id = assigned.find((m) => m.type === 'integer');
  if (id === undefined) return undefined;
  const created = assigned.find((m) => m.type === 'string' && m.format === 'date-time');
  const lot = op.members.find((m) => m.namesLot);
  return {
    idMember: id.name,
    ...(created !== undefined ? { createdMember: created.name } : {}),
    ...(lot !== undefined ? { lotMember: lot.name } : {}),
  };
}

function fail(what: string): never {
  throw new Error(`the contract does not state ${what}`);
}

function membersOf(doc: OpenApiDocument, schemaName: string, lotIdSchema: string | undefined): MemberModel[] {
  const inlined = inlineSchema(doc, { $ref: `${SCHEMA_PREFIX}${schemaName}` });
  const required = Array.isArray(inlined['required']) ? inlined['required'] : [];
  const raw = rawProperties(doc, schemaName);
  const properties = isObject(inlined['properties']) ? inlined['properties'] : {};
  return Object.entries(properties).flatMap(([name, value]): MemberModel[] => {
    if (!isObject(value)) return [];
    const from = value['x-default-from'];
    const sequence = value['x-default-sequence'];
    const [resource, member] = typeof from === 'string' ? from.split('.') : [];
    return [
      {
        name,
        schema: value,
        type: typeof value['type'] === 'string' ? value['type'] : undefined,
        ...(typeof value['format'] === 'string' ? { format: value['format'] } : {}),
        required: required.includes(name),
        readOnly: value['readOnly'] === true,
        ...('default' in value ? { default: value['default'] } : {}),
        ...(resource !== undefined && member !== undefined ? { defaultFrom: { resource, member } } : {}),
        ...(isObject(sequence) && typeof sequence['prefix'] === 'string' && typeof sequence['width'] === 'number'
          ? { defaultSequence: { prefix: sequence['prefix'], width: sequence['width'] } }
          : {}),
        bounds: boundsOf(value),
        namesLot: lotIdSchema !== undefined && refName(raw[name]) === lotIdSchema,
      },
    ];
  });
}

/** Derives the operations model from the contract document (the strict level: the whole contract). */
export function operationsModel(doc: OpenApiDocument): OperationsModel {
  const specs = listOperations(doc);
  const schemas = isObject(doc['components']) && isObject(doc['components']['schemas']) ? doc['components']['schemas'] : {};
  // The lot: named by `x-default-from: <resource>.<member>` in a create body (`lot.lotNumber` → schema `Lot`);
  // the lot-id schema is the integer schema named after it (`LotId`), which the members naming a lot refer to.
  // An operation without a named JSON success body (a health ping, an inline echo) is not one the model
  // describes: the mock answers it through Prism and the suite has no check of its own for it.
  const described = specs.filter((spec) => {
    const success = spec.responses.find((r) => /^2\d\d$/.test(r.status));
    return success !== undefined && refName(success.content.get('application/json')) !== undefined;
  });
  const build = (lotIdSchema: string | undefined): OperationModel[] =>
    described.map((spec) => {
      const success = spec.responses.find((r) => /^2\d\d$/.test(r.status)) ?? fail(`a success response of ${spec.operationId}`);
      const successSchema = refName(success.content.get('application/json')) ?? fail(`the success body of ${spec.operationId}`);
      const requestSchema = refName(spec.requestBody?.content.get('application/json'));
      const requestExample = spec.requestBody?.examples.get('application/json');
      const successExample = success.examples.get('application/json');
      return {
        operationId: spec.operationId as OperationId,
        method: spec.method.toUpperCase(),
        path: spec.path,
        pathParams: spec.pathParams,
        secured: spec.secured,
        successStatus: Number(success.status),
        successSchema,
        ...(requestSchema !== undefined ? { requestSchema } : {}),
        members: requestSchema !== undefined ? membersOf(doc, requestSchema, lotIdSchema) : [],
        successMembers: membersOf(doc, successSchema, lotIdSchema),
        errorStatuses: spec.responses.filter((r) => /^[45]\d\d$/.test(r.status)).map((r) => Number(r.status)),
        ...maxBody(spec.responses),
        ...(requestExample !== undefined ? { requestExample } : {}),
        ...(successExample !== undefined ? { successExample } : {}),
      };
    });
  const firstPass = build(undefined);
  const found = firstPass.flatMap((op) => op.members).find((m) => m.defaultFrom)?.defaultFrom ?? fail('an x-default-from naming a lot');
  const lotName = `${found.resource.charAt(0).toUpperCase()}${found.resource.slice(1)}`;
  const lotIdSchema = Object.keys(schemas).find(
    (name) => name !== lotName && name.startsWith(lotName) && isObject(schemas[name]) && schemas[name]['type'] === 'integer',
  );
  const operations = build(lotIdSchema).map((op) => {
    const roles = op.method === 'POST' && op.requestSchema !== undefined ? recordRoles(op) : undefined;
    return roles !== undefined ? { ...op, record: roles } : op;
  });
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  const orderInfo =
    operations.find((op) => op.method === 'GET' && op.pathParams.length === 1) ?? fail('a GET operation with an order number');
  const creates = operations.filter((op) => op.method === 'POST' && op.requestSchema !== undefined);
  // The links between an order answer and a create body, read from the schemas.
  const defaultFrom = creates.flatMap((op) => op.members).find((m) => m.defaultFrom)?.defaultFrom ?? fail('an x-default-from naming a lot');
  const lotSchema = `${defaultFrom.resource.charAt(0).toUpperCase()}${defaultFrom.resource.slice(1)}`;
  const infoProps = rawProperties(doc, orderInfo.successSchema);
  const lotsMember =
    Object.entries(infoProps).find(([, s]) => isObject(s) && refName(s['items']) === lotSchema)?.[0] ??
    fail(`a list of ${lotSchema} in ${orderInfo.successSchema}`);
  const numberParam = orderInfo.pathParams[0] ?? fail('the order number parameter');
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
    return itemSchema !== undefined ? [{ member, itemSchema, members: membersOf(doc, itemSchema, lotIdSchema) }] : [];
  });
  const lotProps = rawProperties(doc, lotSchema);
  const lotIdMember = 'id' in lotProps ? 'id' : fail(`an id of ${lotSchema}`);
  if (!(defaultFrom.member in lotProps)) fail(`${lotSchema}.${defaultFrom.member}`);
  const validation = isObject(doc['components']) && isObject(doc['components']['schemas']) ? doc['components']['schemas'] : {};
  const problemSchema = 'Problem' in validation ? 'Problem' : fail('a Problem schema');
  const validationProblemSchema = 'ValidationProblem' in validation ? 'ValidationProblem' : fail('a ValidationProblem schema');
  const vpProps = rawProperties(doc, validationProblemSchema);
  const errorsMember =
    Object.keys(vpProps).find((k) => isObject(vpProps[k]) && vpProps[k]['type'] === 'array') ?? fail('errors[] of ValidationProblem');
  const errorsItems = isObject(vpProps[errorsMember]) ? refName(vpProps[errorsMember]['items']) : undefined;
  const pointerMember =
    Object.entries(errorsItems !== undefined ? rawProperties(doc, errorsItems) : {}).find(
      ([, s]) => isObject(s) && s['format'] === 'json-pointer',
    )?.[0] ?? fail('a json-pointer member of the validation errors');
  const get = (id: OperationId): OperationModel => byId.get(id) ?? fail(`the operation ${id}`);
  return {
    operations,
    orderInfo,
    creates,
    createIds: creates.map((op) => op.operationId).filter((id): id is CreateOperationId => id !== orderInfo.operationId),
    order: {
      numberParam,
      orderMember: orderMember ?? fail('the order header of the order-info answer'),
      orderNumberMember: orderNumberMember ?? fail('the order number member of the order header'),
      lotsMember,
      lotIdMember,
      lotNumberMember: defaultFrom.member,
      lotSchema,
      lotResource: defaultFrom.resource,
      headerMembers: membersOf(
        doc,
        refName(infoProps[orderMember ?? '']) ?? fail('the order header of the order-info answer'),
        lotIdSchema,
      ),
      lists,
    },
    problemSchema,
    validationProblemSchema,
    errorsMember,
    pointerMember,
    get,
    isCreate(id: OperationId): id is CreateOperationId {
      return creates.some((op) => op.operationId === id);
    },
    create(id) {
      const op = get(id);
      if (op.method !== 'POST') fail(`${id} as a create operation`);
      return op;
    },
    pathOf(id, params = {}) {
      return get(id).path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
    },
  };
}
