/** Helpers for tests that talk to a mock over real HTTP on loopback. */
import { request as httpRequest } from 'node:http';
import { readContract } from '../contract/document.js';
import { operationsModel } from '../contract/operations-model.js';
import { createMockServer, type MockServer } from './server.js';
import type { MockConfig } from './config.js';

/** The bundled contract's paths, read from its operations model (the creates in contract order). */
const MODEL = operationsModel(readContract());
const [TRANSFERS, SAMPLES] = MODEL.createIds;
/** Order info's path up to its parameter: append an order number. */
export const ORDER_PATH = MODEL.orderInfo.path.slice(0, MODEL.orderInfo.path.indexOf('{'));
export const TRANSFERS_PATH = TRANSFERS === undefined ? '' : MODEL.create(TRANSFERS).path;
export const SAMPLES_PATH = SAMPLES === undefined ? '' : MODEL.create(SAMPLES).path;
export const AUTH = { Authorization: 'Bearer dev-token' };
export const JSON_AUTH = { ...AUTH, 'Content-Type': 'application/json' };

/** A quiet mock on a free loopback port (no log lines unless the test passes `log`). */
export function startMock(config: Partial<MockConfig> = {}): Promise<MockServer> {
  return createMockServer({ port: 0, quiet: true, log: () => undefined, ...config });
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with exact bytes (bodies and headers fetch would refuse or rewrite). */
export function rawRequest(
  url: string,
  options: { method?: string; path: string; headers?: Record<string, string | number>; body?: Buffer | string },
): Promise<RawAnswer> {
  const base = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers ?? {},
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

export async function postJson(server: MockServer, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, { method: 'POST', headers: { ...JSON_AUTH, ...headers }, body: JSON.stringify(body) });
}
