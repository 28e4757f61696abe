/** The load scenarios, from the operations model and the fixtures: GET order info, then a POST of each create naming a fixture lot. */
import { isObject, readContract, type JsonObject } from '../contract/document.js';
import { loadFixtures } from '../contract/fixtures.js';
import { operationsModel, orderRead, type OperationModel, type OperationsModel } from '../contract/operations-model.js';
import { FIXTURES_DIR } from '../contract/paths.js';

/** A scenario's id: its operation's operationId in kebab case (`get-order-info`, `create-lot-transfer`). */
export type ScenarioId = string;
export type Scenario = { id: ScenarioId; method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string } & {
  expectStatus: number;
  bareAnswer: string;
};

/** The first fixture order (by number) that has lots, its order-info answer as the mock serves it, and its first lot. */
export type BenchFixture = { orderNumber: string; orderBody: string; lotId: number };
export const BENCH_TOKEN = 'bench-token';

export function benchFixture(dir: string = FIXTURES_DIR): BenchFixture {
  const { orders, lots } = loadFixtures(dir);
  for (const number of [...orders.keys()].sort()) {
    const found = [...lots].find(([, lot]) => lot.orderNumber === number);
    if (found) return { orderNumber: number, orderBody: JSON.stringify(orders.get(number)), lotId: found[0] };
  }
  throw new Error(`no fixture order in ${dir} has a lot; the create scenarios need one`);
}

/** A create's body: the contract's example, members naming a lot set to the fixture's, required ones added from examples or defaults. */
function createBody(op: OperationModel, fixture: BenchFixture): JsonObject {
  const body: JsonObject = isObject(op.requestExample) ? { ...op.requestExample } : {};
  for (const member of op.members) {
    const examples = member.schema['examples'];
    const value = member.namesLot ? fixture.lotId : Array.isArray(examples) ? examples[0] : member.schema['default'];
    if (value !== undefined && (member.namesLot || (!(member.name in body) && member.required))) body[member.name] = value;
  }
  return body;
}

/** The scenarios for `fixture`, in a fixed order: order info, then each create of the contract (in contract order). */
export function buildScenarios(fixture: BenchFixture, model: OperationsModel = operationsModel(readContract())): Scenario[] {
  const id = (op: OperationModel): ScenarioId => op.operationId.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const headers = { authorization: `Bearer ${BENCH_TOKEN}` };
  const { op: order, links } = orderRead(model);
  const path = model.pathOf(order.operationId, { [links.numberParam]: fixture.orderNumber });
  const read = { id: id(order), method: 'GET' as const, path, headers, expectStatus: order.successStatus, bareAnswer: fixture.orderBody };
  const creates = model.creates.map((op): Scenario => {
    const body = createBody(op, fixture);
    // the bare server answers the contract's example of the created record (the same shape the mock answers)
    const answer = isObject(op.successExample) ? { ...op.successExample, ...body } : body;
    const sent = { method: 'POST' as const, path: op.path, headers: { ...headers, 'content-type': 'application/json' } };
    return { id: id(op), ...sent, body: JSON.stringify(body), expectStatus: op.successStatus, bareAnswer: JSON.stringify(answer) };
  });
  return [read, ...creates];
}
