/**
 * The load scenarios of the bench, read from the contract's operations model and the fixture orders:
 * GET order info, then a POST of each create (its body the contract's example, naming a fixture lot),
 * with a bearer token. Each scenario also carries the precomputed answer the bare server gives.
 */
import { isObject, readContract, type JsonObject } from '../contract/document.js';
import { loadFixtures } from '../contract/fixtures.js';
import { operationsModel, orderRead, type OperationModel, type OperationsModel } from '../contract/operations-model.js';
import { FIXTURES_DIR } from '../contract/paths.js';

/** A scenario's id: its operation's operationId in kebab case (`get-order-info`, `create-lot-transfer`). */
export type ScenarioId = string;

/** One request the load generator repeats, and what a correct server answers. */
export interface Scenario {
  id: ScenarioId;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The status a correct answer has; any other counts as an error. */
  expectStatus: number;
  /** The bytes the bare server answers (the same shape the mock answers). */
  bareAnswer: string;
}

/** The fixture data the scenarios use. */
export interface BenchFixture {
  orderNumber: string;
  /** The order-info answer, serialized as the mock serves it. */
  orderBody: string;
  lotId: number;
  lotNumber: string;
}

export const BENCH_TOKEN = 'bench-token';

/** The first fixture order (by number) that has lots, and its first lot. */
export function benchFixture(dir: string = FIXTURES_DIR): BenchFixture {
  const { orders, lots } = loadFixtures(dir);
  const numbers = [...orders.keys()].sort();
  for (const number of numbers) {
    const found = [...lots].find(([, lot]) => lot.orderNumber === number);
    const lotNumber = found?.[1].lot[orderRead(operationsModel(readContract())).links.lotNumberMember];
    if (found && typeof lotNumber === 'string')
      return { orderNumber: number, orderBody: JSON.stringify(orders.get(number)), lotId: found[0], lotNumber };
  }
  throw new Error(`no fixture order in ${dir} has a lot; the create scenarios need one`);
}

/** The scenario of an operation: its operationId in kebab case (`getOrderInfo` → `get-order-info`). */
function scenarioIdOf(operationId: string): ScenarioId {
  return operationId.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The scenarios of the bundled contract: order info, then each create (in contract order). */
export const SCENARIO_IDS: readonly ScenarioId[] = (() => {
  const model = operationsModel(readContract());
  return [orderRead(model).op, ...model.creates].map((op) => scenarioIdOf(op.operationId));
})();

/**
 * A create's body: the contract's example of it with every member naming a lot set to the fixture's lot,
 * or, without an example, its required members from their schemas' examples or defaults.
 */
function createBody(op: OperationModel, fixture: BenchFixture): JsonObject {
  const example = op.requestExample;
  const body: JsonObject = isObject(example) ? { ...example } : {};
  for (const member of op.members) {
    if (member.namesLot) body[member.name] = fixture.lotId;
    else if (!(member.name in body) && member.required) {
      const examples = member.schema['examples'];
      const value = Array.isArray(examples) ? examples[0] : member.schema['default'];
      if (value !== undefined) body[member.name] = value;
    }
  }
  return body;
}

/** The scenarios for `fixture`, in a fixed order: order info, then each create of the contract (in contract order). */
export function buildScenarios(fixture: BenchFixture, model: OperationsModel = operationsModel(readContract())): Scenario[] {
  const auth = { authorization: `Bearer ${BENCH_TOKEN}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const { op: order, links } = orderRead(model);
  const scenarios: Scenario[] = [
    {
      id: scenarioIdOf(order.operationId),
      method: 'GET',
      path: model.pathOf(order.operationId, { [links.numberParam]: fixture.orderNumber }),
      headers: auth,
      expectStatus: order.successStatus,
      bareAnswer: fixture.orderBody,
    },
  ];
  for (const op of model.creates) {
    const body = createBody(op, fixture);
    // The bare server answers the contract's example of the created record (the same shape the mock answers).
    const answer = isObject(op.successExample) ? { ...op.successExample, ...body } : { ...body };
    scenarios.push({
      id: scenarioIdOf(op.operationId),
      method: 'POST',
      path: op.path,
      headers: json,
      body: JSON.stringify(body),
      expectStatus: op.successStatus,
      bareAnswer: JSON.stringify(answer),
    });
  }
  return scenarios;
}
