/**
 * The three load scenarios of the bench, built from the fixture orders: GET order info, POST
 * lot-transfer create and POST test-sample create, each with a valid body naming a fixture lot and a
 * bearer token. Each scenario also carries the precomputed answer the bare server gives.
 */
import { loadFixtures } from '../contract/fixtures.js';
import { FIXTURES_DIR } from '../contract/paths.js';

export type ScenarioId = 'get-order-info' | 'create-lot-transfer' | 'create-test-sample';

export const SCENARIO_IDS: readonly ScenarioId[] = ['get-order-info', 'create-lot-transfer', 'create-test-sample'];

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
const CREATED_AT = '2026-11-21T10:00:00.000Z';

/** The first fixture order (by number) that has lots, and its first lot. */
export function benchFixture(dir: string = FIXTURES_DIR): BenchFixture {
  const { orders } = loadFixtures(dir);
  const numbers = [...orders.keys()].sort();
  for (const number of numbers) {
    const order = orders.get(number);
    const lot = order?.lots[0];
    if (order && lot) return { orderNumber: number, orderBody: JSON.stringify(order), lotId: lot.id, lotNumber: lot.lotNumber };
  }
  throw new Error(`no fixture order in ${dir} has a lot; the create scenarios need one`);
}

/** The scenarios for `fixture`, in a fixed order. */
export function buildScenarios(fixture: BenchFixture): Scenario[] {
  const auth = { authorization: `Bearer ${BENCH_TOKEN}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const transfer = { fk_lot_id: fixture.lotId, source_scancode: 'BENCH-SRC-1', target_scancode: 'BENCH-TGT-1', amount: 12.5 };
  const sample = { fk_lot_id: fixture.lotId, fk_user_id: 42 };
  return [
    {
      id: 'get-order-info',
      method: 'GET',
      path: `/manualProduction/rest/v1/orders/info/${encodeURIComponent(fixture.orderNumber)}`,
      headers: auth,
      expectStatus: 200,
      bareAnswer: fixture.orderBody,
    },
    {
      id: 'create-lot-transfer',
      method: 'POST',
      path: '/goodsReception/rest/v1/lot-transfers/create',
      headers: json,
      body: JSON.stringify(transfer),
      expectStatus: 201,
      bareAnswer: JSON.stringify({
        id: 1,
        ...transfer,
        completed: false,
        lotnumber: fixture.lotNumber,
        created: CREATED_AT,
        modified: CREATED_AT,
      }),
    },
    {
      id: 'create-test-sample',
      method: 'POST',
      path: '/goodsReception/rest/v1/test-samples/create',
      headers: json,
      body: JSON.stringify(sample),
      expectStatus: 201,
      bareAnswer: JSON.stringify({
        id: 1,
        ...sample,
        lotnumber: fixture.lotNumber,
        sample_number: 'S-000001',
        status: 'NEW',
        notes: '',
        created: CREATED_AT,
        modified: CREATED_AT,
      }),
    },
  ];
}
