/**
 * One reading of the schema extensions (`contract/extensions.ts`): a contract whose `x-default-from`
 * reads another member of the lot and whose `x-default-sequence` has another prefix and width is
 * followed, with no code change, by the mock (what it fills in) and by the judgment the suite and the
 * proxy share (`judgeDefaults`), because both read the operations model's facts. Every name is read from
 * the models of the two contracts: no member is typed here.
 */
import assert from 'node:assert/strict';
import { isObject, readContract, resolvePointer, type JsonObject, type OpenApiDocument } from '../contract/document.js';
import { schemaExtensions } from '../contract/extensions.js';
import { loadFixtures } from '../contract/fixtures.js';
import { operationsModel, withOrder, type OperationModel } from '../contract/operations-model.js';
import { compileContract } from '../contract/schemas.js';
import { baseBody, derivationOf } from '../conformance/data.js';
import { judgeContexts } from '../judgments/context.js';
import { judgeDefaults } from '../judgments/create.js';
import type { JudgedExchange } from '../judgments/exchange.js';
import type { MockServer } from '../mock/server.js';
import { startMock } from '../mock/testing.js';
import { contractFile } from '../support/grown-contracts.js';

const TOKEN = 'extension-facts-token';
const SEQUENCE = { prefix: 'Q-', width: 3 };

const base = readContract();
const baseModel = withOrder(operationsModel(base));
const { lotNumberMember, lotResource, lotSchema } = baseModel.order;
/** Another plain string member of the lot, for the default to be read from instead of the lot number. */
const other = baseModel.order.lists
  .find((list) => list.itemSchema === lotSchema)
  ?.members.find((m) => m.type === 'string' && m.format === undefined && m.name !== lotNumberMember);

/** The bundled contract with every x-default-from reading `other` and every x-default-sequence `SEQUENCE`. */
function changedContract(otherMember: string): OpenApiDocument {
  const doc = structuredClone(base);
  for (const site of schemaExtensions(doc)) {
    const node = resolvePointer(doc, `#${site.pointer}`);
    assert.ok(isObject(node), site.pointer);
    if (site.defaultFrom) node['x-default-from'] = `${lotResource}.${otherMember}`;
    if (site.defaultSequence) node['x-default-sequence'] = { ...SEQUENCE };
  }
  return doc;
}

describe('one reading of the schema extensions: a changed x-default-from and x-default-sequence, followed by the mock and the suite', function () {
  this.timeout(60_000);
  assert.ok(other !== undefined, `${lotSchema} has a string member besides ${lotNumberMember}`);
  const otherMember = other.name;
  const changed = changedContract(otherMember);
  const model = withOrder(operationsModel(changed));
  const judge = judgeContexts(changed).strict;
  const bundled = judgeContexts(base).strict;
  const [lotId, first] = [...loadFixtures(undefined, compileContract(changed, 'strict'), model).lots.entries()][0] ?? [];
  assert.ok(lotId !== undefined && first !== undefined, 'the fixtures have a lot');
  const lot = first.lot;
  let server: MockServer | undefined;

  const filled = (op: OperationModel): string[] =>
    (op.recordModel?.fields ?? []).filter((f) => f.rule.kind === 'from-lot' || f.rule.kind === 'sequence').map((f) => f.name);
  const creates = model.creates.filter((op) => filled(op).length > 0);

  before(async () => {
    server = await startMock({ contractPath: contractFile(changed, 'changed-defaults'), tokens: [TOKEN] });
  });
  after(() => server?.close());

  it('the operations model reads the changed facts (the contract change reached it), and the fixture lot tells them apart', () => {
    assert.ok(creates.length > 0, 'a create fills a member from the lot or a sequence');
    for (const op of creates)
      for (const member of op.members) {
        if (member.defaultFrom) assert.deepEqual(member.defaultFrom, { resource: lotResource, member: otherMember });
        if (member.defaultSequence) assert.deepEqual(member.defaultSequence, SEQUENCE);
      }
    assert.notEqual(JSON.stringify(lot[otherMember]), JSON.stringify(lot[lotNumberMember]));
  });

  for (const op of creates)
    it(`${op.operationId}: the mock fills in what the changed contract says, and the shared judgment of defaults agrees`, async () => {
      const d = derivationOf(judge, op.operationId);
      const body = baseBody(d, lotId);
      for (const name of filled(op)) assert.ok(!(name in body), `${name} is left out`);
      assert.ok(server !== undefined);
      const answer = await fetch(`${server.url}${model.pathOf(op.operationId)}`, {
        method: op.method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-mock-session': 'extension-facts' },
        body: JSON.stringify(body),
      });
      const text = await answer.text();
      assert.equal(answer.status, op.successStatus, text);
      const record = JSON.parse(text) as JsonObject;
      for (const field of op.recordModel?.fields ?? []) {
        if (field.rule.kind === 'from-lot') assert.deepEqual(record[field.name], lot[otherMember], field.name);
        if (field.rule.kind === 'sequence') {
          const value = record[field.name];
          assert.ok(typeof value === 'string' && /^Q-\d{3,}$/.test(value), `${field.name}: ${JSON.stringify(value)}`);
        }
      }
      const exchange: JudgedExchange = {
        request: { target: op.operationId, method: op.method, path: model.pathOf(op.operationId), headers: {}, body: JSON.stringify(body) },
        answer: { status: answer.status, headers: { 'content-type': answer.headers.get('content-type') ?? '' }, text },
      };
      assert.deepEqual(judgeDefaults(exchange, judge, op.operationId, body, lot), []);
      // The same answer judged by the bundled contract's facts: the default read from the lot is wrong there (the check can fail).
      const fromLot = op.members.filter((m) => m.defaultFrom).map((m) => `/${m.name}`);
      assert.deepEqual(
        judgeDefaults(exchange, bundled, op.operationId, body, lot).map((v) => v.pointer),
        fromLot,
      );
    });
});

describe('one reading of the schema extensions: a malformed one stops the mock and the judgments alike, naming its pointer', () => {
  const broken = structuredClone(base);
  const site = schemaExtensions(broken).find((s) => s.defaultFrom !== undefined);
  assert.ok(site !== undefined, 'the bundled contract has an x-default-from');
  const node = resolvePointer(broken, `#${site.pointer}`);
  assert.ok(isObject(node));
  node['x-default-from'] = lotResource;
  const named = (error: unknown): boolean =>
    error instanceof Error &&
    error.message.endsWith(`(at ${site.pointer}/x-default-from)`) &&
    /not "<resource>\.<member>"/.test(error.message);

  it('the mock does not start', async () => {
    await assert.rejects(startMock({ contractPath: contractFile(broken, 'broken-default'), tokens: [TOKEN] }), named);
  });

  it('the judge contexts the suite and the proxy share are not built', () => {
    assert.throws(() => judgeContexts(broken), named);
  });
});
