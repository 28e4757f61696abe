/**
 * The resources of a contract, found from its operations, independent of path order and of this API's
 * names (see docs/resources.md):
 *
 * - a resource is what a create produces (a POST with a JSON body answering an object of a named schema),
 *   or what a read answers when no operation creates it (records served from fixtures, such as the order);
 * - its key is the member a declared link takes (`links` on a create's success answer:
 *   `parameters: { id: '$response.body#/id' }`), else the `readOnly` integer the server numbers, else the
 *   member named like a read's path parameter, else `id`;
 * - its consumers are the operations a link names, else, where unambiguous, the operations whose last path
 *   parameter names the key (or is `id`): a GET answering the record reads it, PATCH changes it (JSON merge
 *   patch, RFC 7396), PUT replaces it, DELETE deletes it (a DELETE on the path of a read or a change);
 * - a list is a GET without that parameter answering an array (or a page) of records; its query parameters
 *   named like a member are equality filters, `limit`/`offset` page it;
 * - an action (`POST .../{id}/complete`) is declared with `x-action` (the members it sets, the values it
 *   requires, else 409): no rule can tell what it does.
 *
 * What cannot be decided is a ResourceError saying exactly what to declare.
 */
import { isObject, type JsonObject, type OpenApiDocument, type OperationSpec } from './document.js';
import type { ActionModel, ListModel, MemberModel, OperationModel, ResourceModel } from './model-types.js';
import { escapeToken } from '../util/json-pointer.js';
import { PointedContractError } from './pointed-error.js';
import { membersOf, rawProperties, refName, SCHEMA_PREFIX } from './schema-walk.js';

/** A contract whose resources cannot be found unambiguously: `pointer` names the place, the message what to declare. */
export class ResourceError extends PointedContractError {}

/** A schema's resource name: kebab case, plural (`LotTransfer` → `lot-transfers`, `Book` → `books`). */
export function resourceName(schema: string): string {
  return `${schema.replace(/(?<=[a-z0-9])([A-Z])/g, '-$1').toLowerCase()}s`;
}

const opPointer = (op: Pick<OperationModel, 'path' | 'method'>): string => `/paths/${escapeToken(op.path)}/${op.method.toLowerCase()}`;

/** The last path parameter of a template when it is the last segment (`/x/{id}` → `id`), or the one before a last literal (`/x/{id}/complete`). */
function trailingParam(path: string): { param: string; prefix: string; tail?: string } | undefined {
  const segments = path.split('/');
  const last = segments.at(-1) ?? '';
  const whole = /^\{([^}]+)\}$/.exec(last);
  if (whole?.[1] !== undefined) return { param: whole[1], prefix: path };
  const before = /^\{([^}]+)\}$/.exec(segments.at(-2) ?? '');
  if (before?.[1] !== undefined) return { param: before[1], prefix: segments.slice(0, -1).join('/'), tail: last };
  return undefined;
}

/** The template with every parameter name blanked (`/x/{id}` and `/x/{isbn}` are one path). */
const shapeOf = (path: string): string => path.replace(/\{[^}]+\}/g, '{}');

/** The key member a link parameter takes from the create's answer (`$response.body#/id` → `id`). */
function linkedMember(expression: unknown): string | undefined {
  if (typeof expression !== 'string') return undefined;
  const match = /^\$response\.body#\/([^/]+)$/.exec(expression);
  return match?.[1]?.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The operation a link targets (`operationId`, or `operationRef: '#/paths/~1x~1{id}/get'`). */
function linkTarget(link: JsonObject, ops: readonly OperationModel[]): OperationModel | undefined {
  if (typeof link['operationId'] === 'string') return ops.find((op) => op.operationId === link['operationId']);
  const ref = link['operationRef'];
  if (typeof ref !== 'string' || !ref.startsWith('#/paths/')) return undefined;
  const parts = ref.slice('#/paths/'.length).split('/');
  const method = parts.pop()?.toUpperCase();
  const path = parts.join('/').replace(/~1/g, '/').replace(/~0/g, '~');
  return ops.find((op) => op.path === path && op.method === method);
}

/** Reads `x-action` of an operation (throws a ResourceError naming its pointer when malformed). */
function actionOf(spec: OperationSpec, op: OperationModel, members: readonly MemberModel[] | undefined): ActionModel | undefined {
  const value = spec.raw['x-action'];
  if (value === undefined) return undefined;
  const at = `${opPointer(op)}/x-action`;
  if (!isObject(value)) throw new ResourceError(at, 'x-action must be an object: { sets: { <member>: <value>, ... }, requires: { ... } }');
  const sets = value['sets'];
  const requires = value['requires'] ?? {};
  if (!isObject(sets) || Object.keys(sets).length === 0)
    throw new ResourceError(`${at}/sets`, 'x-action needs "sets": the members the action sets and their values (an object)');
  if (!isObject(requires))
    throw new ResourceError(`${at}/requires`, '"requires" must be an object of members and the values they must have');
  for (const [part, object] of [
    ['sets', sets],
    ['requires', requires],
  ] as const)
    for (const name of Object.keys(object))
      if (members !== undefined && !members.some((m) => m.name === name))
        throw new ResourceError(`${at}/${part}/${escapeToken(name)}`, `"${name}" is not a member of the record the action acts on`);
  for (const key of Object.keys(value))
    if (key !== 'sets' && key !== 'requires')
      throw new ResourceError(`${at}/${escapeToken(key)}`, `x-action has no "${key}" (only sets, requires)`);
  return { sets, requires };
}

interface Draft extends ResourceModel {
  /** Set once a consumer was tied to it by a link: the key then comes from the link. */
  linkedKey?: string;
}

/** Where a fixture record holds the value of path parameter `param`: a member named like it, or `<m>.<m><Param>` (`order.orderNumber`). */
function fixtureKey(
  doc: OpenApiDocument,
  schema: string,
  param: string,
): { key: string; pointer: string; type: string | undefined } | undefined {
  const props = rawProperties(doc, schema);
  const typeOf = (value: unknown): string | undefined => {
    const node = isObject(value) && typeof value['$ref'] === 'string' ? rawDeref(doc, value['$ref']) : value;
    return isObject(node) && typeof node['type'] === 'string' ? node['type'] : undefined;
  };
  if (param in props) return { key: param, pointer: `/${escapeToken(param)}`, type: typeOf(props[param]) };
  for (const [name, sub] of Object.entries(props)) {
    const ref = refName(sub);
    if (ref === undefined) continue;
    const inner = rawProperties(doc, ref);
    const wanted = `${name}${param.charAt(0).toUpperCase()}${param.slice(1)}`;
    if (wanted in inner) return { key: name, pointer: `/${escapeToken(name)}/${escapeToken(wanted)}`, type: typeOf(inner[wanted]) };
  }
  return undefined;
}

function rawDeref(doc: OpenApiDocument, ref: string): unknown {
  if (!ref.startsWith(SCHEMA_PREFIX)) return undefined;
  const components = isObject(doc['components']) ? doc['components'] : {};
  const schemas = isObject(components['schemas']) ? components['schemas'] : {};
  return schemas[ref.slice(SCHEMA_PREFIX.length)];
}

const PAGING_LIMIT = ['limit', 'pageSize', 'page_size', 'per_page', 'size'];
const PAGING_OFFSET = ['offset', 'skip', 'start'];

/**
 * Finds the resources of `ops` (built by `operations-model.ts`, every role still `other`) and gives each
 * operation its role, resource and key parameter. `specs` are the same operations as listed.
 */
export function findResources(
  doc: OpenApiDocument,
  ops: OperationModel[],
  specs: ReadonlyMap<string, OperationSpec>,
  lotIdSchema: string | undefined,
): ResourceModel[] {
  const spec = (op: OperationModel): OperationSpec => {
    const found = specs.get(op.operationId);
    if (!found) throw new Error(`no operation ${op.operationId}`);
    return found;
  };
  /** The operation declares an action (`x-action`; `actionOf` reads what it declares). */
  const declaresAction = (op: OperationModel): boolean => spec(op).raw['x-action'] !== undefined;
  const bySchema = new Map<string, Draft>();
  const draft = (schema: string, fixtures: boolean): Draft => {
    let resource = bySchema.get(schema);
    if (!resource) {
      resource = {
        name: resourceName(schema),
        schema,
        key: '',
        keyPointer: '',
        keyType: undefined,
        keyAssigned: false,
        fixtures,
        producers: [],
        reads: [],
        lists: [],
        updates: [],
        deletes: [],
        actions: [],
        members: membersOf(doc, `${SCHEMA_PREFIX}${schema}`, lotIdSchema),
        found: {},
      };
      bySchema.set(schema, resource);
    }
    return resource;
  };
  const sorted = [...ops].sort((a, b) => (a.path === b.path ? a.method.localeCompare(b.method) : a.path.localeCompare(b.path)));

  // 1. Creates: a POST with a JSON body answering an object of a named schema, not declared an action.
  for (const op of sorted) {
    if (op.method !== 'POST' || op.requestRef === undefined || op.success.kind !== 'object') continue;
    if (declaresAction(op)) continue;
    const resource = draft(op.success.schema, false);
    resource.producers.push(op.operationId);
    op.role = 'create';
    op.resource = resource.name;
  }
  // 2. Records served from fixtures: a GET on `.../{param}` answering an object no operation creates.
  for (const op of sorted) {
    if (op.method !== 'GET' || op.success.kind !== 'object') continue;
    const trailing = trailingParam(op.path);
    if (trailing === undefined || trailing.tail !== undefined || bySchema.has(op.success.schema)) continue;
    const key = fixtureKey(doc, op.success.schema, trailing.param);
    if (key === undefined) continue;
    const resource = draft(op.success.schema, true);
    Object.assign(resource, { key: key.key, keyPointer: key.pointer, keyType: key.type });
    resource.reads.push(op.operationId);
    resource.found[op.operationId] = 'inferred';
    op.role = 'fixture-read';
    op.resource = resource.name;
    op.keyParam = trailing.param;
  }

  // 3. Declared links from a create's success answer.
  const linked = new Map<OperationModel, { resource: Draft; param: string }>();
  for (const op of sorted.filter((o) => o.role === 'create')) {
    const resource = bySchema.get(op.successSchema ?? '');
    const success = spec(op).responses.find((r) => r.status === String(op.successStatus));
    if (!resource || !success) continue;
    for (const [name, link] of success.links) {
      const at = `${opPointer(op)}/responses/${op.successStatus}/links/${escapeToken(name)}`;
      const target = linkTarget(link, ops);
      if (!target) throw new ResourceError(at, 'the link names no operation of the contract (operationId or operationRef)');
      const parameters = isObject(link['parameters']) ? link['parameters'] : {};
      const entries = Object.entries(parameters).flatMap(([param, expression]) => {
        const member = linkedMember(expression);
        const plain = param.replace(/^path\./, '');
        return member !== undefined && target.pathParams.includes(plain) ? [{ param: plain, member }] : [];
      });
      const [entry] = entries;
      if (entry === undefined) continue;
      if (resource.linkedKey !== undefined && resource.linkedKey !== entry.member)
        throw new ResourceError(
          at,
          `the links of ${resource.schema} take two keys (${resource.linkedKey}, ${entry.member}): a resource has one key`,
        );
      resource.linkedKey = entry.member;
      linked.set(target, { resource, param: entry.param });
    }
  }

  // 4. The key of each created resource.
  for (const resource of bySchema.values()) {
    if (resource.fixtures) continue;
    const assigned = resource.members.find((m) => m.readOnly && m.type === 'integer');
    const readParam = sorted
      .filter((op) => op.method === 'GET' && op.success.kind === 'object' && op.success.schema === resource.schema)
      .map((op) => trailingParam(op.path))
      .find((t) => t !== undefined && t.tail === undefined)?.param;
    const named = (name: string | undefined) => (name === undefined ? undefined : resource.members.find((m) => m.name === name));
    const key = named(resource.linkedKey) ?? assigned ?? named(readParam) ?? named('id');
    if (resource.linkedKey !== undefined && named(resource.linkedKey) === undefined)
      throw new ResourceError(
        `/components/schemas/${escapeToken(resource.schema)}`,
        `a link takes the key "${resource.linkedKey}", which is not a member of ${resource.schema}`,
      );
    if (key === undefined) continue;
    resource.key = key.name;
    resource.keyPointer = `/${escapeToken(key.name)}`;
    resource.keyType = key.type;
    resource.keyAssigned = key.readOnly && key.type === 'integer';
  }

  // 5. Consumers: linked ones first, then those inferred where unambiguous.
  const keyed = [...bySchema.values()].filter((r) => r.key !== '');
  // A parameter names the key when it is the key member, `id`, or ends with it (`sampleId`, `sample_id` for `id`).
  const namesKey = (param: string, resource: Draft): boolean => {
    const key = resource.key;
    if (param === key || param === 'id') return true;
    return param.endsWith(`_${key}`) || (key.length > 0 && param.endsWith(`${key.charAt(0).toUpperCase()}${key.slice(1)}`));
  };
  const readPaths = new Map<string, Draft>();
  const tie = (op: OperationModel, resource: Draft, param: string, how: 'link' | 'inferred'): void => {
    op.resource = resource.name;
    op.keyParam = param;
    resource.found[op.operationId] = how;
    if (op.method === 'GET') {
      op.role = 'read';
      resource.reads.push(op.operationId);
    } else if (op.method === 'PATCH' || op.method === 'PUT') {
      op.role = 'update';
      resource.updates.push({ operationId: op.operationId, kind: op.method === 'PATCH' ? 'merge' : 'replace' });
    } else if (op.method === 'DELETE') {
      op.role = 'delete';
      resource.deletes.push(op.operationId);
    } else if (op.method === 'POST') {
      const action = actionOf(spec(op), op, resource.members);
      if (action === undefined)
        throw new ResourceError(
          opPointer(op),
          `${op.method} ${op.path} acts on one ${resource.schema} (its {${param}}), but no rule says what it does: declare x-action: { sets: { <member>: <value> }, requires: { <member>: <value> } }`,
        );
      op.role = 'action';
      op.action = action;
      resource.actions.push(op.operationId);
    }
    if (op.method !== 'POST') readPaths.set(shapeOf(op.path), resource);
  };
  for (const op of sorted) {
    const link = linked.get(op);
    if (!link || op.role !== 'other') continue;
    tie(op, link.resource, link.param, 'link');
  }
  // Reads and changes answering the record, on a path whose last parameter names the key.
  for (const op of sorted) {
    if (op.role !== 'other' || !['GET', 'PATCH', 'PUT'].includes(op.method)) continue;
    const trailing = trailingParam(op.path);
    if (trailing === undefined || trailing.tail !== undefined) continue;
    const schema = op.success.kind === 'object' ? op.success.schema : undefined;
    const bySame = schema !== undefined ? bySchema.get(schema) : readPaths.get(shapeOf(op.path));
    if (bySame === undefined || bySame.key === '' || bySame.fixtures) continue;
    if (!namesKey(trailing.param, bySame) && readPaths.get(shapeOf(op.path)) !== bySame) continue;
    if (op.method !== 'GET' && op.requestRef === undefined) continue;
    tie(op, bySame, trailing.param, 'inferred');
  }
  // Deletes, and changes answering no record: on the path of a read or a change.
  for (const op of sorted) {
    if (op.role !== 'other' || !['DELETE', 'PATCH', 'PUT'].includes(op.method)) continue;
    const trailing = trailingParam(op.path);
    if (trailing === undefined || trailing.tail !== undefined) continue;
    const resource = readPaths.get(shapeOf(op.path));
    if (resource === undefined) {
      const candidates = keyed.filter((r) => !r.fixtures && namesKey(trailing.param, r));
      if (op.method === 'DELETE' && candidates.length > 0)
        throw new ResourceError(
          opPointer(op),
          `DELETE ${op.path} may delete a record of ${candidates.map((r) => r.schema).join(' or ')}, but no read or change of one shares its path: declare a link to it from the create's success answer (links: { delete: { operationId: ${op.operationId}, parameters: { ${trailing.param}: '$response.body#/${candidates[0]?.key ?? 'id'}' } } })`,
        );
      continue;
    }
    if (op.method !== 'DELETE' && op.requestRef === undefined) continue;
    tie(op, resource, trailing.param, 'inferred');
  }
  // Actions: declared with x-action, on `.../{key}/<verb>` (or any path a link names).
  for (const op of sorted) {
    if (op.role !== 'other' || op.method !== 'POST') continue;
    const trailing = trailingParam(op.path);
    const declared = declaresAction(op);
    if (trailing === undefined) {
      if (declared)
        throw new ResourceError(
          `${opPointer(op)}/x-action`,
          'an action acts on one record: its path needs the record key as a parameter (.../{id}/<verb>)',
        );
      continue;
    }
    const byPath = readPaths.get(shapeOf(trailing.prefix));
    const bySchemaName = op.success.kind === 'object' ? bySchema.get(op.success.schema) : undefined;
    const resource = byPath ?? (bySchemaName !== undefined && namesKey(trailing.param, bySchemaName) ? bySchemaName : undefined);
    if (resource === undefined || resource.fixtures) {
      if (declared)
        throw new ResourceError(
          `${opPointer(op)}/x-action`,
          `no resource has ${trailing.prefix} as the path of one record: declare a link from the create's success answer to ${op.operationId}`,
        );
      continue;
    }
    tie(op, resource, trailing.param, 'inferred');
  }
  // A create on the path of one record (`POST .../{id}/...` answering the record) is no create: say what to declare.
  for (const op of sorted) {
    if (op.role !== 'create') continue;
    const trailing = trailingParam(op.path);
    if (trailing === undefined) continue;
    const onRecord = readPaths.get(shapeOf(trailing.prefix));
    if (onRecord !== undefined && onRecord.schema === op.successSchema)
      throw new ResourceError(
        opPointer(op),
        `POST ${op.path} answers a ${onRecord.schema} on the path of one record ({${trailing.param}}): if it acts on that record, declare x-action: { sets: { ... }, requires: { ... } }; a create needs a path without the record's key`,
      );
  }

  // 6. Lists: a GET without the key parameter answering an array or a page of records.
  for (const op of sorted) {
    if (op.role !== 'other' || op.method !== 'GET') continue;
    if (op.success.kind !== 'array' && op.success.kind !== 'page') continue;
    const resource = bySchema.get(op.success.item);
    if (resource === undefined) continue;
    const query = op.params.filter((p) => p.in === 'query');
    const filters = query.flatMap((p) => {
      const member = resource.members.find((m) => m.name === p.name);
      return member !== undefined ? [{ param: p.name, member: member.name, type: member.type }] : [];
    });
    const others = query.filter((p) => !filters.some((f) => f.param === p.name) && (p.type === 'integer' || p.type === 'number'));
    const limit = others.find((p) => PAGING_LIMIT.includes(p.name))?.name;
    const offset = others.find((p) => PAGING_OFFSET.includes(p.name))?.name;
    const list: ListModel = {
      operationId: op.operationId,
      filters,
      ...(limit !== undefined ? { paging: { limit, ...(offset !== undefined ? { offset } : {}) } } : {}),
      shape: op.success,
    };
    resource.lists.push(list);
    resource.found[op.operationId] = 'inferred';
    op.role = 'list';
    op.resource = resource.name;
  }
  // A declared action the rules above could not place.
  for (const op of sorted)
    if (op.role === 'other' && declaresAction(op))
      throw new ResourceError(
        `${opPointer(op)}/x-action`,
        `${op.method} ${op.path}: an action must be a POST on the path of one record (.../{id}/<verb>)`,
      );
  const order = (ids: readonly string[]): string[] => ops.filter((o) => ids.includes(o.operationId)).map((o) => o.operationId);
  return [...bySchema.values()]
    .map(({ linkedKey: _linked, ...resource }) => ({
      ...resource,
      producers: order(resource.producers),
      reads: order(resource.reads),
      deletes: order(resource.deletes),
      actions: order(resource.actions),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
