/**
 * The runner of a resource's stateful sequence, derived from the operations model: it creates two
 * records (A and B, differing in every member a list filters on), reads A back and a key never created,
 * lists with each filter (and every filter together, and a page at a time), changes A with each change
 * operation (a valid change, then an invalid one), runs each action on A twice, deletes B twice and reads
 * it, creates a third record after the delete and, for a key the client chooses, a second record with
 * A's key. It only sends; the checks (the module `checks/records.ts`) judge the sequence with `judgments/records.ts`.
 * Run once per resource and shared by every check that judges it (`ctx.memo`).
 */
import { isObject, type JsonObject, type JsonValue } from '../contract/document.js';
import type { OperationModel, ResourceModel } from '../contract/operations-model.js';
import {
  recordOf,
  keyOf,
  type ActionStep,
  type ChangeStep,
  type DeleteStep,
  type ListStep,
  type RecordSequence,
} from '../judgments/records.js';
import type { CheckContext } from './context.js';
import { acceptsMember, baseBody, derivationOf, invalidBodies, memberClasses, writable, subSeed } from './data.js';
import { CheckNotRun } from './failure.js';
import { childPointer } from '../util/json-pointer.js';
import type { Exchange } from './http.js';

/** A value as a query parameter carries it. */
function queryText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The first valid value of a member other than `not` (its classes in the op's request schema). */
function otherValue(
  ctx: CheckContext,
  op: OperationModel,
  member: string,
  body: JsonObject,
  not: JsonValue | undefined,
): JsonValue | undefined {
  const d = derivationOf(ctx.judge, op.operationId);
  const model = d.op.members.find((m) => m.name === member);
  if (model === undefined) return undefined;
  return memberClasses(d, model, body)
    .map((c) => c.value)
    .find((v) => JSON.stringify(v) !== JSON.stringify(not ?? null) && acceptsMember(d, body, member, v));
}

export class SequenceRunner {
  private readonly seq: RecordSequence;
  private readonly producer: OperationModel;

  constructor(
    private readonly ctx: CheckContext,
    private readonly resource: ResourceModel,
  ) {
    const first = resource.producers[0];
    if (first === undefined) throw new Error(`${resource.name} has no create`);
    this.producer = ctx.model.get(first);
    this.seq = { resource, created: [], reads: [], lists: [], changes: [], actions: [], deletes: [] };
  }

  private keyParams(op: string, key: string): Record<string, string> {
    const param = this.ctx.model.get(op).keyParam;
    return param !== undefined ? { [param]: key } : {};
  }

  private read(key: string): Promise<Exchange> | undefined {
    const op = this.resource.reads[0];
    return op === undefined ? undefined : this.ctx.request(op, { params: this.keyParams(op, key) });
  }

  /** The record of `key` as a read shows it now (else as last known). */
  private async current(key: string, known: JsonObject): Promise<JsonObject> {
    const exchange = await this.read(key);
    return recordOf(exchange) ?? known;
  }

  /**
   * A valid body of the create, with the members the resource's actions require (so they can start);
   * B differs from A in every member a list filters on, and names another lot when there is one.
   */
  private async body(which: 'a' | 'b', a?: JsonObject): Promise<JsonObject> {
    const body = await this.ctx.body(this.producer.operationId, `sequence-${this.resource.name}-${which}`);
    const writableNames = new Set(writable(this.producer).map((m) => m.name));
    for (const op of this.resource.actions)
      for (const [name, value] of Object.entries(this.ctx.model.get(op).action?.requires ?? {}))
        if (writableNames.has(name)) body[name] = value;
    if (which === 'b' && a !== undefined) {
      const lots = await this.ctx.lots();
      const lotMember = this.producer.recordModel?.lotMember;
      const other = lots.find((lot) => lot.id !== a[lotMember ?? '']);
      if (lotMember !== undefined && other !== undefined) body[lotMember] = other.id;
      const filtered = new Set(this.resource.lists.flatMap((l) => l.filters.map((f) => f.member)));
      for (const member of filtered) {
        if (member === lotMember || JSON.stringify(body[member] ?? null) !== JSON.stringify(a[member] ?? null)) continue;
        const value = otherValue(this.ctx, this.producer, member, body, a[member]);
        if (value !== undefined) body[member] = value;
      }
      if (!this.resource.keyAssigned && body[this.resource.key] === a[this.resource.key]) {
        const value = otherValue(this.ctx, this.producer, this.resource.key, body, a[this.resource.key]);
        if (value !== undefined) body[this.resource.key] = value;
      }
    }
    return body;
  }

  private async create(which: string, body: JsonObject): Promise<{ key: string; sent: JsonObject; exchange: Exchange }> {
    const exchange = await this.ctx.extraCreate(`records/${this.resource.name}/${which}`, this.producer.operationId, body);
    this.ctx.sent(exchange);
    const record = recordOf(exchange);
    const key = this.resource.keyAssigned ? keyOf(this.resource, record) : keyOf(this.resource, body);
    if (key === undefined || record === undefined)
      throw new CheckNotRun(
        `the create of record ${which.toUpperCase()} of ${this.resource.name} answered ${exchange.answer?.status ?? 'nothing'}${record !== undefined ? ` without a key in ${this.resource.key}` : ''}: the sequence needs it`,
        'setup',
        `${this.producer.method} ${this.producer.path}`,
      );
    return { key, sent: body, exchange };
  }

  /** A key no record has: for a numbered key, past every id handed out; else a valid value of the key member no created record has. */
  private unknownKey(): string {
    const keys = this.seq.created.map((c) => c.key);
    if (this.resource.keyType === 'integer')
      return String(Math.max(...keys.map(Number), 0) + 1_000_000 + (subSeed(this.ctx.config.seed, this.resource.name) % 1000));
    return queryText(
      this.ctx.freshKey(this.producer.operationId, `unknown-${this.resource.name}`) ?? `conformance-unknown-${this.ctx.config.runMarker}`,
    );
  }

  async run(): Promise<RecordSequence> {
    const a = await this.create('a', await this.body('a'));
    this.seq.created.push(a);
    const b = await this.create('b', await this.body('b', a.sent));
    this.seq.created.push(b);
    for (const op of this.resource.reads) {
      const exchange = await this.ctx.request(op, { params: this.keyParams(op, a.key) });
      const unknownKey = this.unknownKey();
      const unknown = await this.ctx.request(op, { params: this.keyParams(op, unknownKey) });
      this.seq.reads.push({ op, key: a.key, exchange, unknownKey, unknown });
    }
    for (const list of this.resource.lists) this.seq.lists.push({ op: list.operationId, steps: await this.listSteps(list, a, b) });
    for (const update of this.resource.updates) {
      const step = await this.change(update.operationId, update.kind, a);
      if (step) this.seq.changes.push(step);
    }
    for (const op of this.resource.actions) {
      const step = await this.action(op, a);
      if (step) this.seq.actions.push(step);
    }
    for (const op of this.resource.deletes.slice(0, 1)) this.seq.deletes.push(await this.delete(op, b.key));
    if (this.resource.deletes.length > 0 && this.resource.keyAssigned) {
      const exchange = await this.ctx.extraCreate(
        `records/${this.resource.name}/after-delete`,
        this.producer.operationId,
        await this.body('a'),
      );
      this.ctx.sent(exchange);
      this.seq.afterDeletes = exchange;
    }
    if (!this.resource.keyAssigned) {
      const body = { ...(await this.body('b', a.sent)), [this.resource.key]: a.sent[this.resource.key] ?? null };
      const exchange = await this.ctx.extraCreate(`records/${this.resource.name}/duplicate`, this.producer.operationId, body, {
        keepKey: true,
      });
      this.ctx.sent(exchange);
      this.seq.duplicate = { key: a.key, exchange };
    }
    return this.seq;
  }

  private async listSteps(
    list: ResourceModel['lists'][number],
    a: { sent: JsonObject; exchange: Exchange },
    b: { sent: JsonObject; exchange: Exchange },
  ): Promise<ListStep[]> {
    const recordA = recordOf(a.exchange) ?? a.sent;
    const recordB = recordOf(b.exchange) ?? b.sent;
    const steps: ListStep[] = [];
    // A paged list is asked for its largest page (its limit's maximum, else 100) when no page is the point.
    const limitParam =
      list.paging !== undefined ? this.ctx.model.get(list.operationId).params.find((p) => p.name === list.paging?.limit) : undefined;
    const largest = typeof limitParam?.schema['maximum'] === 'number' ? limitParam.schema['maximum'] : 100;
    const ask = async (name: string, filters: [string, string, JsonValue][], page?: { limit: number; offset: number }) => {
      const query: [string, string][] = filters.map(([param, , value]) => [param, queryText(value)]);
      if (list.paging !== undefined) {
        query.push([list.paging.limit, String(page?.limit ?? largest)]);
        if (page !== undefined && list.paging.offset !== undefined) query.push([list.paging.offset, String(page.offset)]);
      }
      const exchange = await this.ctx.request(list.operationId, { query });
      steps.push({
        name,
        filters: Object.fromEntries(filters.map(([, member, value]) => [member, value])),
        ...(page ? { page } : list.paging !== undefined ? { limit: largest } : {}),
        ...(this.ctx.config.runMarker !== '' &&
        filters.some(([, , value]) => typeof value === 'string' && value.includes(this.ctx.config.runMarker))
          ? { singlesOut: true }
          : {}),
        exchange,
      });
    };
    const of = (record: JsonObject, f: (typeof list.filters)[number]): [string, string, JsonValue] => [
      f.param,
      f.member,
      record[f.member] ?? null,
    ];
    const usable = list.filters.filter(
      (f) => recordA[f.member] !== undefined && !isObject(recordA[f.member]) && !Array.isArray(recordA[f.member]),
    );
    await ask('no filter', []);
    for (const f of usable) {
      await ask(`${f.param} of record A`, [of(recordA, f)]);
      if (JSON.stringify(recordA[f.member]) !== JSON.stringify(recordB[f.member] ?? null) && recordB[f.member] !== undefined)
        await ask(`${f.param} of record B`, [of(recordB, f)]);
    }
    if (usable.length > 1) {
      await ask(
        'every filter, with the values of record A',
        usable.map((f) => of(recordA, f)),
      );
      const [first, ...rest] = usable;
      if (first !== undefined)
        await ask('one filter with a value of record A, the others of record B', [of(recordA, first), ...rest.map((f) => of(recordB, f))]);
    }
    if (list.paging !== undefined && list.paging.offset !== undefined) {
      await ask('a page of one record (offset 0)', [], { limit: 1, offset: 0 });
      await ask('the next page of one record (offset 1)', [], { limit: 1, offset: 1 });
    }
    return steps;
  }

  private async change(
    op: string,
    kind: 'merge' | 'replace',
    a: { key: string; sent: JsonObject; exchange: Exchange },
  ): Promise<ChangeStep | undefined> {
    const model = this.ctx.model.get(op);
    const d = derivationOf(this.ctx.judge, op);
    const before = await this.current(a.key, recordOf(a.exchange) ?? a.sent);
    // The member changed: the first one the change's schema lets a client write to another valid value.
    const base: JsonObject =
      kind === 'replace'
        ? Object.fromEntries(writable(model).flatMap((m) => (before[m.name] !== undefined ? [[m.name, before[m.name] ?? null]] : [])))
        : baseBody(d, undefined);
    let sent: JsonObject | undefined;
    let changed = '';
    for (const member of writable(model)) {
      if (member.namesLot || member.name === this.resource.key) continue;
      const value = otherValue(this.ctx, model, member.name, base, before[member.name]);
      if (value === undefined) continue;
      sent = { ...base, [member.name]: value };
      changed = member.name;
      break;
    }
    if (sent === undefined) return undefined;
    const exchange = await this.ctx.request(op, { params: this.keyParams(op, a.key), body: sent, write: true });
    const readAfter = await this.read(a.key);
    const step: ChangeStep = { op, kind, before, sent, exchange, ...(readAfter ? { readAfter } : {}) };
    // An invalid change: a body the change's schema refuses, at the spec level if one is, that also carries a
    // valid change (the member changed again, to another value) and breaks another member: a server applying
    // the valid part of a change it refuses shows it in the read after.
    const after = recordOf(readAfter) ?? recordOf(exchange) ?? before;
    const again = otherValue(this.ctx, model, changed, sent, after[changed]);
    const invalid = invalidBodies(d, again !== undefined ? { ...sent, [changed]: again } : sent);
    const elsewhere = (c: (typeof invalid)[number]): boolean =>
      c.pointers.every((p) => p !== childPointer('', changed) && !p.startsWith(`${childPointer('', changed)}/`));
    const bad =
      invalid.find((c) => c.levels.includes('spec') && elsewhere(c)) ??
      invalid.find(elsewhere) ??
      invalid.find((c) => c.levels.includes('spec')) ??
      invalid[0];
    if (bad !== undefined) {
      const refusal = await this.ctx.request(op, { params: this.keyParams(op, a.key), body: bad.body, write: true });
      const readAgain = await this.read(a.key);
      step.refused = { before: after, sent: bad.body, exchange: refusal, ...(readAgain ? { readAfter: readAgain } : {}) };
    }
    return step;
  }

  private async action(op: string, a: { key: string; sent: JsonObject; exchange: Exchange }): Promise<ActionStep | undefined> {
    const model = this.ctx.model.get(op);
    const action = model.action;
    if (action === undefined) return undefined;
    const before = await this.current(a.key, recordOf(a.exchange) ?? a.sent);
    if (Object.entries(action.requires).some(([name, value]) => JSON.stringify(before[name] ?? null) !== JSON.stringify(value)))
      return undefined;
    const body = model.requestRef !== undefined ? baseBody(derivationOf(this.ctx.judge, op), undefined) : undefined;
    const send = () => this.ctx.request(op, { params: this.keyParams(op, a.key), ...(body !== undefined ? { body } : {}), write: true });
    const exchange = await send();
    const readAfter = await this.read(a.key);
    const step: ActionStep = { op, sets: action.sets, before, exchange, ...(readAfter ? { readAfter } : {}) };
    const after = recordOf(readAfter) ?? recordOf(exchange);
    // Again only when the first run left the record without what the action requires (else a repeat is allowed).
    if (
      after !== undefined &&
      Object.entries(action.requires).some(([name, value]) => JSON.stringify(after[name] ?? null) !== JSON.stringify(value))
    ) {
      const again = await send();
      const readAgain = await this.read(a.key);
      step.again = { exchange: again, ...(readAgain ? { readAfter: readAgain } : {}) };
    }
    return step;
  }

  private async delete(op: string, key: string): Promise<DeleteStep> {
    const exchange = await this.ctx.request(op, { params: this.keyParams(op, key), write: true });
    const readAfter = await this.read(key);
    const again = await this.ctx.request(op, { params: this.keyParams(op, key), write: true });
    return { op, key, exchange, ...(readAfter ? { readAfter } : {}), again };
  }
}

/** The sequence of a resource, run once per run (every check judging it shares it). */
export function resourceSequence(ctx: CheckContext, resource: ResourceModel): Promise<RecordSequence> {
  return ctx.memo(`records/${resource.name}`, () => new SequenceRunner(ctx, resource).run());
}
