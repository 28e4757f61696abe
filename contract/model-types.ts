/**
 * The shapes of the operations model (`operations-model.ts` builds it, `resources.ts` finds its
 * resources): types only, so both read them without importing each other.
 */
import type { JsonObject, JsonValue } from './document.js';
import type { DefaultFrom, DefaultSequence } from './extensions.js';
import type { OperationSecurity } from './security.js';

export type { DefaultFrom, DefaultSequence } from './extensions.js';

/** An operation's id as the contract writes it (`operationId`, else `<method> <path>`). */
export type OperationId = string;
/** The id of an operation that creates a record (a producer of a resource). */
export type CreateOperationId = string;

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
  defaultFrom?: DefaultFrom;
  /** `x-default-sequence`: the default is generated, unique (`prefix` + zero-padded number). */
  defaultSequence?: DefaultSequence;
  bounds: Bound[];
  /** The member names a lot (its schema is the contract's lot-id schema). */
  namesLot: boolean;
}

/** A path or query parameter of an operation. */
export interface ParamModel {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  /** Its schema, `$ref`s inlined (`{}` when it states none). */
  schema: JsonObject;
  type: string | undefined;
}

/** What a success answer's body is. */
export type BodyShape =
  /** An object of a named schema. */
  | { kind: 'object'; schema: string }
  /** An array of objects of a named schema. */
  | { kind: 'array'; item: string }
  /** A page: an object with one array member (`member`) of objects of a named schema, its other members scalars (`others`: a total). */
  | { kind: 'page'; member: string; item: string; others: { name: string; type: string | undefined }[] }
  /** No body (204, or a response without content). */
  | { kind: 'none' }
  /** Anything else (an inline object, a string, ...). */
  | { kind: 'other' };

/**
 * What an operation does with a resource: `fixture-read` reads one record served from fixtures (the
 * order); `create` records a new one; `read`, `list`, `update`, `delete` and `action` act on created
 * (or fixture) records; `other` has no resource meaning (the mock answers it from the contract's examples).
 */
export type OperationRole = 'fixture-read' | 'create' | 'read' | 'list' | 'update' | 'delete' | 'action' | 'other';

/** An action (`x-action`): the members it sets, and the values the record must have first (else 409). */
export interface ActionModel {
  sets: JsonObject;
  requires: JsonObject;
}

export interface OperationModel {
  operationId: OperationId;
  /** Upper case, as sent. */
  method: string;
  /** The path template, e.g. `/manualProduction/rest/v1/orders/info/{number}`. */
  path: string;
  pathParams: string[];
  /** Its parameters in the path and the query (headers and cookies aside), schemas inlined. */
  params: ParamModel[];
  /** What its credentials must be (`security.ts`). */
  security: OperationSecurity;
  /** A request without credentials is refused. */
  secured: boolean;
  /** The success status of the profile (`200`, `201`, `204`). */
  successStatus: number;
  /** The body of the success answer. */
  success: BodyShape;
  /** The component name of the success body when it is a named object (`OrderInfo`, `LotTransfer`). */
  successSchema?: string;
  /** The component name of the request body schema, when it is a named one. */
  requestSchema?: string;
  /** A local reference to the request body's schema (named or inline), for its validator. */
  requestRef?: string;
  /** The media type of the JSON request body (`application/json`, `application/merge-patch+json`). */
  requestMediaType?: string;
  /** The request body's members (empty without a body), in contract order. */
  members: MemberModel[];
  /** The success body's members (of an item for a list), in contract order (a create: the record as answered). */
  successMembers: MemberModel[];
  /** A create's record roles, read from its record model: a create whose server numbers its records only. */
  record?: RecordRoles;
  /** How a create's record is made, member by member (creates only; `record-rules.ts`). */
  recordModel?: RecordModel;
  /** Error statuses the contract documents for the operation (strict level). */
  errorStatuses: number[];
  /** The largest request body accepted (`x-max-body-bytes` of its documented 413), when stated. */
  maxBodyBytes?: number;
  /** The contract's first example of the JSON request body, when it gives one. */
  requestExample?: JsonValue;
  /** The contract's first example of the JSON success body, when it gives one. */
  successExample?: JsonValue;
  /** What it does with a resource. */
  role: OperationRole;
  /** The resource it acts on (`resources.ts`), for every role but `other`. */
  resource?: string;
  /** The path parameter carrying the resource's key (read, update, delete, action, fixture-read). */
  keyParam?: string;
  /** An action's declaration (`x-action`). */
  action?: ActionModel;
}

/** How a member of a created record gets its value (read from its schema, never from its name). */
export type FieldRule =
  /** A `readOnly` integer: the next number of the resource. */
  | { kind: 'id' }
  /** A `readOnly` date-time, set at the create only (`created`: the first one), or at every change too (`changed`). */
  | { kind: 'timestamp'; stamp: 'created' | 'changed' }
  /** Any other `readOnly` member: the server assigns it, by no rule the contract states. */
  | { kind: 'assigned' }
  /** `default`: the value when the member is left out. */
  | { kind: 'default'; value: JsonValue }
  /** `x-default-from: <lot resource>.<member>`: that member of the lot the body names, when left out. */
  | { kind: 'from-lot'; member: string }
  /** `x-default-sequence`: the next value of the resource's sequence, when left out. */
  | { kind: 'sequence'; prefix: string; width: number }
  /** What the client sends (nothing when it is left out). */
  | { kind: 'input' };

export interface FieldSpec {
  name: string;
  rule: FieldRule;
}

/** How a create makes its record: the one reading of its server-assigned and defaulted members. */
export interface RecordModel {
  /** The answer's members, in the contract's order, with how each gets its value. */
  fields: FieldSpec[];
  /** Request members the server assigns itself (`readOnly`; stripped from a request body). */
  readOnly: string[];
  /** The request member naming a lot (`fk_lot_id`), when the create names one. */
  lotMember?: string;
}

/** What the members of a created record stand for (its record model's `id`, first stamp and lot member). */
export interface RecordRoles {
  /** The member the server numbers: the success body's `readOnly` integer (`id`). */
  idMember: string;
  /** The member stamped with the time of the create: the first `readOnly` date-time (`created`), when there is one. */
  createdMember?: string;
  /** The request member naming a lot (`fk_lot_id`), when there is one. */
  lotMember?: string;
}

/** A list operation of a resource: its equality filters and its paging. */
export interface ListModel {
  operationId: OperationId;
  /** Query parameters named like a member of the record: the list answers the records whose member equals the value. */
  filters: { param: string; member: string; type: string | undefined }[];
  /** Query parameters that page the list, when the contract has them. */
  paging?: { limit: string; offset?: string };
  /** The array (or page) the records are answered in. */
  shape: Extract<BodyShape, { kind: 'array' } | { kind: 'page' }>;
}

/** A resource: the records a create (or a fixture set) produces, and the operations that act on them. */
export interface ResourceModel {
  /** Its name (kebab case, plural, from its schema: `LotTransfer` → `lot-transfers`), under `/__mock/<name>`. */
  name: string;
  /** The component name of a record (`LotTransfer`). */
  schema: string;
  /** The member holding a record's key (`id`, `isbn`): the top member of `keyPointer`. */
  key: string;
  /** Where the key is in a record (`/id`; `/order/orderNumber` for an order served from fixtures). */
  keyPointer: string;
  /** The key's JSON type (`integer`, `string`). */
  keyType: string | undefined;
  /** The server numbers the key (a `readOnly` integer); else the client sends it. */
  keyAssigned: boolean;
  /** Its records come from fixtures (no operation creates them). */
  fixtures: boolean;
  producers: OperationId[];
  reads: OperationId[];
  lists: ListModel[];
  updates: { operationId: OperationId; kind: 'merge' | 'replace' }[];
  deletes: OperationId[];
  actions: OperationId[];
  /** A record's members, in contract order. */
  members: MemberModel[];
  /** How each consumer was tied to the resource: `link` (declared) or `inferred`. */
  found: Record<OperationId, 'link' | 'inferred'>;
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
  /** The member of the answer listing the lots (`lots`), when creates name lots. */
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
