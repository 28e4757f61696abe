/**
 * `GET /__mock/model`: the operations model (`contract/operations-model.ts`) as JSON, for the
 * dashboard and other tools that must not type the contract's paths and member names. Built once at
 * start-up from the contract the mock serves: each operation's id, method, path template, its role in
 * the mock (the order read, a stateful create, or answered by Prism), a create's resource name and the
 * listing the mock serves, and the members to show, in contract order, with what the model knows of
 * them (the record's id, creation time and lot link; the order's header and lists).
 */
import { resourceOf, type MemberModel, type OperationModel, type OperationsModel } from '../contract/operations-model.js';

/** A member as the view shows it (JSON: no `undefined`, no schema). */
export interface MemberView {
  name: string;
  /** The JSON Schema type, or null when the schema states none. */
  type: string | null;
  /** The JSON Schema format (`date`, `date-time`), when stated. */
  format?: string;
  required: boolean;
  readOnly: boolean;
  /** The member names a lot (its schema is the lot-id schema). */
  namesLot: boolean;
}

export interface OrderView {
  /** The path parameter carrying the order number. */
  numberParam: string;
  /** The member of the answer holding the order header, and the header's member equal to the order number. */
  headerMember: string;
  numberMember: string;
  headerMembers: MemberView[];
  /** The answer's lists, each with its items' members as the contract states them (none for an open object). */
  lists: { member: string; itemSchema: string; members: MemberView[] }[];
  /** The list of lots, and a lot's id member. */
  lotsMember: string;
  lotIdMember: string;
}

export interface OperationView {
  operationId: string;
  method: string;
  path: string;
  pathParams: string[];
  /**
   * `order-read`: answered from the fixture orders; `create`: recorded per session; `read`, `list`,
   * `update`, `delete`, `action`: on the recorded records of `resource` (per session); `fixture-read`: a
   * read of records served from fixtures; `other`: answered by Prism.
   */
  role: 'order-read' | 'create' | 'read' | 'list' | 'update' | 'delete' | 'action' | 'fixture-read' | 'other';
  /** The success body's members, in contract order (a create: the record as answered and listed). */
  members: MemberView[];
  /** A create: the resource its records are kept under, and the listing the mock serves. */
  resource?: string;
  listing?: string;
  /** A create: the member the server numbers, the one stamped with the creation time, the one naming a lot. */
  record?: { idMember: string; createdMember?: string; lotMember?: string };
  /** The order read: its header and lists. */
  order?: OrderView;
}

export interface ModelView {
  operations: OperationView[];
}

function memberView(member: MemberModel): MemberView {
  return {
    name: member.name,
    type: member.type ?? null,
    ...(member.format !== undefined ? { format: member.format } : {}),
    required: member.required,
    readOnly: member.readOnly,
    namesLot: member.namesLot,
  };
}

/**
 * The view of `model`; `listingPrefix` is where the mock lists a create's records (`/__mock`), and
 * `resources` the resources it records (a create the mock does not record is `other`).
 */
export function modelView(model: OperationsModel, listingPrefix: string, resources: readonly string[]): ModelView {
  const operationView = (op: OperationModel): OperationView => {
    const base = {
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      pathParams: op.pathParams,
      members: op.successMembers.map(memberView),
    };
    const order = model.order;
    if (op.operationId === model.orderInfo?.operationId && order !== undefined) {
      return {
        ...base,
        role: 'order-read',
        order: {
          numberParam: order.numberParam,
          headerMember: order.orderMember,
          numberMember: order.orderNumberMember,
          headerMembers: order.headerMembers.map(memberView),
          lists: order.lists.map((list) => ({ member: list.member, itemSchema: list.itemSchema, members: list.members.map(memberView) })),
          lotsMember: order.lotsMember,
          lotIdMember: order.lotIdMember,
        },
      };
    }
    const resource = resourceOf(op);
    if (model.isCreate(op.operationId) && resources.includes(resource)) {
      return {
        ...base,
        role: 'create',
        resource,
        listing: `${listingPrefix}/${resource}`,
        ...(op.record !== undefined ? { record: op.record } : {}),
      };
    }
    if (op.role !== 'create' && op.role !== 'other' && op.resource !== undefined)
      return {
        ...base,
        role: op.role,
        resource: op.resource,
        ...(resources.includes(op.resource) ? { listing: `${listingPrefix}/${op.resource}` } : {}),
      };
    return { ...base, role: 'other' };
  };
  return { operations: model.operations.map(operationView) };
}
