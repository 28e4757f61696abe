/**
 * Contracts grown the way an API team grows them (support/grown-contracts.ts: reads with and without a
 * declared link, a filtered list, a paged list, a merge-patch change, a replace, a delete, an action
 * with its 409, a new create, an API-key scheme on one operation, the paths in another order; and a
 * small books API without lots whose key is an ISBN): with no code change between them, the mock
 * serves every operation statefully with every scheme enforced, and the suite passes it at both levels.
 * Every request here is built from the contract's operations model: no path or member is typed.
 */
import assert from 'node:assert/strict';
import { isObject, type JsonObject, type JsonValue, type OpenApiDocument } from '../contract/document.js';
import { fixtureResource, loadFixtures } from '../contract/fixtures.js';
import { compileContract } from '../contract/schemas.js';
import { operationsModel, type OperationModel, type OperationsModel, type ResourceModel } from '../contract/operations-model.js';
import { schemesOf } from '../contract/security.js';
import { credentialsFor, partsOf, withQuery, type CredentialParts } from '../checks/credentials.js';
import { baseBody, derivationOf, memberClasses, uniqueValue } from '../conformance/data.js';
import { judgeContexts } from '../judgments/context.js';
import { resolveConformanceConfig } from '../conformance/config.js';
import { runConformance } from '../conformance/run.js';
import type { MockServer } from '../mock/server.js';
import { startMock } from '../mock/testing.js';
import { booksContract, contractFile, grownContract } from '../support/grown-contracts.js';

const TOKEN = 'dev-token';
/** The credentials the mock accepts for every scheme: the token, and user:password for Basic. */
const CREDENTIALS = { token: TOKEN, byScheme: {} };
const ACCEPTED = [TOKEN, `conformance:${TOKEN}`];

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: JsonValue | undefined;
}

/** The `type` of a problem body ('' for anything else). */
const problemType = (json: JsonValue | undefined): string => (isObject(json) && typeof json['type'] === 'string' ? json['type'] : '');

const CONTRACTS: [string, () => OpenApiDocument][] = [
  ['a grown contract (a link declared)', () => grownContract()],
  ['the grown contract without the link (the read inferred)', () => grownContract({ links: false })],
  ['the grown contract with its paths in another order', () => grownContract({ reversed: true })],
  ['another small API: no lots, no fixtures, an ISBN as key', () => booksContract()],
];

for (const [label, make] of CONTRACTS) {
  describe(`grown contracts: ${label}`, function () {
    this.timeout(120_000);
    const document = make();
    const model = operationsModel(document);
    const file = contractFile(document, 'grown');
    let server: MockServer;
    let lots: number[] = [];
    before(async () => {
      server = await startMock({ contractPath: file, tokens: ACCEPTED });
      if (fixtureResource(model) !== undefined) lots = [...loadFixtures(undefined, compileContract(document, 'strict'), model).lots.keys()];
    });
    after(() => server.close());

    const send = async (
      op: OperationModel,
      options: {
        params?: Record<string, string>;
        query?: [string, string][];
        body?: unknown;
        credentials?: CredentialParts;
        session?: string;
        contentType?: string;
      } = {},
    ): Promise<Answer> => {
      const credentials = options.credentials ?? credentialsFor(op.security, CREDENTIALS)?.parts ?? { headers: {}, query: [] };
      const path = withQuery(model.pathOf(op.operationId, options.params), [...(options.query ?? []), ...credentials.query]);
      const headers: Record<string, string> = {
        accept: 'application/json',
        ...credentials.headers,
        'x-mock-session': options.session ?? 'grown',
      };
      if (options.body !== undefined) headers['content-type'] = options.contentType ?? op.requestMediaType ?? 'application/json';
      const answer = await fetch(`${server.url}${path}`, {
        method: op.method,
        headers,
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      });
      const text = await answer.text();
      let json: JsonValue | undefined;
      try {
        json = text === '' ? undefined : (JSON.parse(text) as JsonValue);
      } catch {
        json = undefined;
      }
      return { status: answer.status, headers: answer.headers, text, json };
    };
    const jc = judgeContexts(document).strict;
    let made = 0;
    const keys = new Set<string>();
    /** A valid body of a create: its required members, a fixture lot, a new key when the client chooses it. */
    const validBody = (op: OperationModel, resource: ResourceModel): JsonObject => {
      const d = derivationOf(jc, op.operationId);
      const body = baseBody(d, lots[made % Math.max(lots.length, 1)]);
      made++;
      if (!resource.keyAssigned) {
        const member = op.members.find((m) => m.name === resource.key);
        if (member) body[resource.key] = uniqueValue(d, body, member, `grown/${label}/${made}`, keys) ?? null;
        keys.add(JSON.stringify(body[resource.key]));
      }
      return body;
    };
    const keyOf = (resource: ResourceModel, record: JsonValue | undefined): string => {
      const key = isObject(record) ? record[resource.key] : undefined;
      return typeof key === 'string' || typeof key === 'number' ? String(key) : assert.fail('a record with a key');
    };
    const param = (op: OperationModel, key: string): Record<string, string> => ({ [op.keyParam ?? '']: key });

    for (const resource of model.resources.filter((r) => !r.fixtures && r.producers.length > 0)) {
      describe(resource.name, () => {
        const producer = model.get(resource.producers[0] ?? '');
        const created = async (session = 'grown'): Promise<JsonObject> => {
          const answer = await send(producer, { body: validBody(producer, resource), session });
          assert.equal(answer.status, producer.successStatus, answer.text);
          assert.ok(isObject(answer.json));
          return answer.json;
        };

        if (resource.reads.length > 0)
          it('reads a created record back; a key never created, and one of another session, is 404', async () => {
            const record = await created();
            for (const read of resource.reads.map((id) => model.get(id))) {
              const found = await send(read, { params: param(read, keyOf(resource, record)) });
              assert.equal(found.status, 200, found.text);
              assert.deepEqual(found.json, record);
              const other = await send(read, { params: param(read, keyOf(resource, record)), session: 'someone-else' });
              assert.equal(other.status, 404, 'sessions keep their own records');
              const unknown = await send(read, { params: param(read, resource.keyType === 'integer' ? '987654' : 'no-such-key') });
              assert.equal(unknown.status, 404, unknown.text);
              assert.ok(problemType(unknown.json).endsWith('/record-not-found'), unknown.text);
            }
          });

        for (const list of resource.lists)
          it(`${list.operationId}: answers exactly the records matching every filter${list.paging ? ', a page at a time' : ''}`, async () => {
            const session = `list-${list.operationId}`;
            const records = [await created(session), await created(session), await created(session)];
            const op = model.get(list.operationId);
            const items = (answer: Answer): JsonObject[] => {
              const value = list.shape.kind === 'page' && isObject(answer.json) ? answer.json[list.shape.member] : answer.json;
              assert.ok(Array.isArray(value), answer.text);
              return value.filter(isObject);
            };
            const all = await send(op, { session });
            assert.equal(all.status, 200, all.text);
            assert.equal(items(all).length, records.length);
            for (const filter of list.filters) {
              const value = records[0]?.[filter.member] ?? null;
              const answer = await send(op, {
                session,
                query: [[filter.param, typeof value === 'string' ? value : JSON.stringify(value)]],
              });
              const expected = records.filter((r) => JSON.stringify(r[filter.member] ?? null) === JSON.stringify(value));
              assert.deepEqual(items(answer), expected, `${filter.param}=${JSON.stringify(value)}`);
            }
            if (list.paging?.offset !== undefined) {
              const first = await send(op, {
                session,
                query: [
                  [list.paging.limit, '2'],
                  [list.paging.offset, '0'],
                ],
              });
              const second = await send(op, {
                session,
                query: [
                  [list.paging.limit, '2'],
                  [list.paging.offset, '2'],
                ],
              });
              assert.deepEqual([...items(first), ...items(second)], records);
              assert.equal(isObject(first.json) ? first.json['total'] : undefined, records.length, 'the page counts every match');
            }
            const bad = op.params.find((p) => p.in === 'query' && p.type === 'integer');
            if (bad !== undefined) {
              const refused = await send(op, { session, query: [[bad.name, 'not-a-number']] });
              assert.equal(refused.status, 400, refused.text);
              assert.ok(problemType(refused.json).endsWith('/invalid-parameter'));
            }
          });

        for (const update of resource.updates)
          it(`${update.operationId}: a ${update.kind === 'merge' ? 'merge patch' : 'replace'} sticks; a refused change (400 with pointers) changes nothing`, async () => {
            const record = await created();
            const op = model.get(update.operationId);
            const d = derivationOf(jc, op.operationId);
            const member = op.members.find(
              (m) =>
                !m.readOnly &&
                !m.namesLot &&
                m.name !== resource.key &&
                memberClasses(d, m).some((c) => JSON.stringify(c.value) !== JSON.stringify(record[m.name])),
            );
            assert.ok(member, 'a member the change can write');
            const value =
              memberClasses(d, member).find((c) => JSON.stringify(c.value) !== JSON.stringify(record[member.name]))?.value ?? null;
            const body =
              update.kind === 'merge'
                ? { [member.name]: value }
                : {
                    ...Object.fromEntries(
                      op.members.filter((m) => !m.readOnly && record[m.name] !== undefined).map((m) => [m.name, record[m.name] ?? null]),
                    ),
                    [member.name]: value,
                  };
            const changed = await send(op, { params: param(op, keyOf(resource, record)), body });
            assert.equal(changed.status, op.successStatus, changed.text);
            const read = resource.reads[0] !== undefined ? model.get(resource.reads[0]) : undefined;
            const after = read !== undefined ? (await send(read, { params: param(read, keyOf(resource, record)) })).json : changed.json;
            assert.ok(isObject(after));
            assert.deepEqual(after[member.name], value);
            for (const m of resource.members.filter((x) => !x.readOnly && x.name !== member.name && x.name in body === false))
              if (update.kind === 'merge') assert.deepEqual(after[m.name], record[m.name], `${m.name} unchanged`);
            const refused = await send(op, { params: param(op, keyOf(resource, record)), body: { ...body, [member.name]: [] } });
            assert.equal(refused.status, 400, refused.text);
            assert.ok(
              isObject(refused.json) &&
                Array.isArray(refused.json['errors']) &&
                refused.json['errors'].some((e) => isObject(e) && e['pointer'] === `/${member.name}`),
              refused.text,
            );
            if (read !== undefined)
              assert.deepEqual(
                (await send(read, { params: param(read, keyOf(resource, record)) })).json,
                after,
                'the refused change changed nothing',
              );
            const wrongType = await send(op, { params: param(op, keyOf(resource, record)), body, contentType: 'text/plain' });
            assert.equal(wrongType.status, 415, wrongType.text);
            const missing = await send(op, { params: param(op, resource.keyType === 'integer' ? '987654' : 'no-such-key'), body });
            assert.equal(missing.status, 404, missing.text);
          });

        for (const id of resource.actions)
          it(`${id}: the action sets its members; asked again without what it requires, 409 and nothing changes`, async () => {
            const op = model.get(id);
            const action = op.action ?? assert.fail('an action');
            const body = validBody(producer, resource);
            Object.assign(body, action.requires);
            const answer = await send(producer, { body });
            assert.ok(isObject(answer.json));
            const record = answer.json;
            const first = await send(op, { params: param(op, keyOf(resource, record)) });
            assert.equal(first.status, op.successStatus, first.text);
            assert.ok(isObject(first.json));
            for (const [name, value] of Object.entries(action.sets)) assert.deepEqual(first.json[name], value);
            const again = await send(op, { params: param(op, keyOf(resource, record)) });
            assert.equal(again.status, 409, again.text);
            assert.ok(problemType(again.json).endsWith('/state-conflict'), again.text);
            const read = resource.reads[0] !== undefined ? model.get(resource.reads[0]) : undefined;
            if (read !== undefined) assert.deepEqual((await send(read, { params: param(read, keyOf(resource, record)) })).json, first.json);
          });

        for (const id of resource.deletes)
          it(`${id}: deletes (then 404, and 404 again); a create after it never takes the deleted key`, async () => {
            const record = await created();
            const op = model.get(id);
            const gone = await send(op, { params: param(op, keyOf(resource, record)) });
            assert.equal(gone.status, op.successStatus, gone.text);
            const read = resource.reads[0] !== undefined ? model.get(resource.reads[0]) : undefined;
            if (read !== undefined) assert.equal((await send(read, { params: param(read, keyOf(resource, record)) })).status, 404);
            assert.equal((await send(op, { params: param(op, keyOf(resource, record)) })).status, 404);
            if (resource.keyAssigned) assert.notEqual(keyOf(resource, await created()), keyOf(resource, record));
          });

        if (!resource.keyAssigned)
          it('a second create with the same key is 409', async () => {
            const body = validBody(producer, resource);
            assert.equal((await send(producer, { body })).status, producer.successStatus);
            const again = await send(producer, { body });
            assert.equal(again.status, 409, again.text);
            assert.ok(problemType(again.json).endsWith('/duplicate-key'));
          });
      });
    }

    it("every operation's security is enforced before anything answers, Prism's operations too: its own scheme accepted, none and another scheme refused", async () => {
      const declared = new Map(model.operations.flatMap((op) => schemesOf(op.security)).map((s) => [s.name, s]));
      for (const op of model.operations) {
        const params = Object.fromEntries(op.params.filter((p) => p.in === 'path').map((p) => [p.name, p.type === 'integer' ? '1' : 'x']));
        const bare = await send(op, { params, credentials: { headers: {}, query: [] }, ...(op.requestRef ? { body: {} } : {}) });
        if (!op.secured) {
          assert.notEqual(bare.status, 401, `${op.operationId} needs no credentials`);
          continue;
        }
        assert.equal(bare.status, 401, `${op.operationId} without credentials`);
        assert.ok(bare.headers.get('www-authenticate'), `${op.operationId}: a challenge`);
        for (const scheme of declared.values()) {
          if (schemesOf(op.security).some((s) => JSON.stringify(s.carrier) === JSON.stringify(scheme.carrier))) continue;
          const value = scheme.carrier.kind === 'authorization' && scheme.carrier.scheme === 'basic' ? `conformance:${TOKEN}` : TOKEN;
          const other = await send(op, { params, credentials: partsOf(scheme, value), ...(op.requestRef ? { body: {} } : {}) });
          assert.equal(other.status, 401, `${op.operationId} refuses ${scheme.name}, which it does not accept`);
        }
      }
      const prism = model.operations.find((op) => op.role === 'other');
      if (prism !== undefined) assert.equal((await send(prism)).status, prism.successStatus, 'Prism answers once the credentials pass');
    });

    for (const level of ['spec', 'strict'] as const)
      it(`the suite passes the mock at ${level} (exit 0), every check derived from this contract`, async () => {
        const run = await runConformance(
          resolveConformanceConfig({ contractPath: file, level, seed: 11, outputDir: 'reports', reporters: ['console'] }),
          {
            write: () => undefined,
          },
        );
        assert.equal(
          run.verdict.exitCode,
          0,
          run.verdict.checks
            .filter((r) => r.status !== 'passed')
            .map((r) => `${r.id}: ${r.message ?? r.status}`)
            .join('\n'),
        );
      });
  });
}

export type { OperationsModel };
