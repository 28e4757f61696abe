/** Helpers of the validating-proxy tests: a quiet proxy in front of an upstream, the client's usual flow, the violations. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGoodsClient } from '../../client/index.js';
import type { Level } from '../../contract/levels.js';
import { createMockServer, type MockServer } from '../../mock/index.js';
import { DEFAULT_PROXY, type ProxyConfig } from '../../mock/proxy/config.js';
import type { ViolationsSnapshot } from '../../mock/proxy/violations.js';

export interface Proxy {
  server: MockServer;
  url: string;
  lines: string[];
  outputDir: string;
  close(): Promise<void>;
}

export async function startProxy(upstream: string, level: Level, options: Partial<ProxyConfig> = {}): Promise<Proxy> {
  const lines: string[] = [];
  const outputDir = options.outputDir ?? mkdtempSync(join(tmpdir(), 'proxy-reports-'));
  const server = await createMockServer({
    port: 0,
    quiet: true,
    log: (line) => lines.push(line),
    proxy: { ...DEFAULT_PROXY, keep: 500, ...options, upstream, level, outputDir },
  });
  return { server, url: server.url, lines, outputDir, close: () => server.close() };
}

export async function violationsOf(proxy: Proxy): Promise<ViolationsSnapshot> {
  const response = await fetch(`${proxy.url}/__mock/violations`);
  if (response.status !== 200) throw new Error(`GET /__mock/violations answered ${response.status}`);
  return (await response.json()) as ViolationsSnapshot;
}

/** Every violation kept, as `side operation rule where` lines, sorted (the tests' expectations). */
export async function violationLines(proxy: Proxy): Promise<string[]> {
  const snapshot = await violationsOf(proxy);
  return snapshot.recent
    .flatMap((e) => e.violations.map((v) => `${v.side} ${v.operation} ${v.rule} ${v.in}${v.pointer === '' ? '' : ` ${v.pointer}`}`))
    .sort();
}

export interface FlowTarget {
  baseUrl: string;
  token: string;
  /** A token the upstream refuses (the 401 path). */
  badToken: string;
  orderNumber: string;
  lotId: number;
}

export const UNKNOWN_ORDER = 'NO-SUCH-ORDER-42';
export const UNKNOWN_LOT = 987_654;

/**
 * The typed client's usual flow: an order, a transfer, a sample, and the error paths a frontend
 * meets (an unknown order 404, a refused token 401, an unknown lot 422 on both creates). Answers the statuses seen.
 */
export async function usualFlow(target: FlowTarget): Promise<number[]> {
  const client = createGoodsClient({ baseUrl: target.baseUrl, token: target.token });
  const refused = createGoodsClient({ baseUrl: target.baseUrl, token: target.badToken });
  const statuses: number[] = [];
  statuses.push((await client.getOrderInfo(target.orderNumber)).status);
  statuses.push(
    (await client.createLotTransfer({ fk_lot_id: target.lotId, source_scancode: 'SRC-1', target_scancode: 'TGT-1', amount: 2.5 })).status,
  );
  statuses.push(
    (await client.createTestSample({ fk_lot_id: target.lotId, fk_user_id: 7, lotnumber: 'L-SENT-BY-CLIENT', notes: 'first sample' }))
      .status,
  );
  statuses.push((await client.getOrderInfo(UNKNOWN_ORDER)).status);
  statuses.push((await refused.getOrderInfo(target.orderNumber)).status);
  statuses.push(
    (await client.createLotTransfer({ fk_lot_id: UNKNOWN_LOT, source_scancode: 'SRC-1', target_scancode: 'TGT-1', amount: 1 })).status,
  );
  statuses.push((await client.createTestSample({ fk_lot_id: UNKNOWN_LOT, fk_user_id: 7 })).status);
  return statuses;
}

/** The statuses of the usual flow against a server that follows the contract. */
export const CORRECT_FLOW_STATUSES = [200, 201, 201, 404, 401, 422, 422];
