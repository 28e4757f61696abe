import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readContract } from '../contract/document.js';
import type { MockServer } from './server.js';
import { AUTH, ORDER_PATH, postJson, SAMPLES_PATH, startMock } from './testing.js';

const PING = '/goodsReception/rest/v1/ping';
const ECHO = '/goodsReception/rest/v1/echo';

/** A copy of the contract with two operations the mock has no handler for. */
function contractWithExtraOperations(): Record<string, unknown> {
  const doc = readContract() as Record<string, unknown> & { paths: Record<string, unknown> };
  doc.paths[PING] = {
    get: {
      operationId: 'ping',
      summary: 'Liveness (added to a copy of the contract by a test)',
      responses: {
        '200': {
          description: 'Alive.',
          content: {
            'application/json': {
              schema: { type: 'object', properties: { pong: { type: 'boolean' } } },
              example: { pong: true, from: 'example' },
            },
          },
        },
        '401': { $ref: '#/components/responses/Unauthorized' },
      },
    },
  };
  doc.paths[ECHO] = {
    post: {
      operationId: 'echo',
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'object', required: ['word'], properties: { word: { type: 'string' } } } } },
      },
      responses: {
        '201': { description: 'Echoed.', content: { 'application/json': { schema: { type: 'object' }, example: { echoed: 'example' } } } },
        '422': { description: 'Invalid.', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
      },
    },
  };
  return doc;
}

describe('mock: operations without a stateful handler are answered by Prism (prism-http)', () => {
  let dir: string;
  let server: MockServer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'goods-mock-contract-'));
    const contractPath = join(dir, 'openapi.json');
    writeFileSync(contractPath, JSON.stringify(contractWithExtraOperations()));
    server = await startMock({ contractPath });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('routes only the added operations to Prism', () => {
    assert.deepEqual(server.prismOperations.sort(), ['echo', 'ping']);
  });

  it('answers an added GET with its example, and Prism checks the security', async () => {
    const response = await fetch(`${server.url}${PING}`, { headers: AUTH });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { pong: true, from: 'example' });
    const denied = await fetch(`${server.url}${PING}`);
    assert.equal(denied.status, 401);
  });

  it('validates an added POST with Prism and answers its example', async () => {
    const ok = await fetch(`${server.url}${ECHO}`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/json' },
      body: '{"word":"hi"}',
    });
    assert.equal(ok.status, 201);
    assert.deepEqual(await ok.json(), { echoed: 'example' });
    const invalid = await fetch(`${server.url}${ECHO}`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/json' },
      body: '{"word":1}',
    });
    assert.equal(invalid.status, 422);
  });

  it('keeps the stateful handlers for the three operations of the contract', async () => {
    assert.equal((await fetch(`${server.url}${ORDER_PATH}ORD-2026-0002`, { headers: AUTH })).status, 200);
    assert.equal((await postJson(server, SAMPLES_PATH, { fk_lot_id: 2001, fk_user_id: 1 })).status, 201);
    assert.equal(((await (await fetch(`${server.url}/__mock/test-samples`)).json()) as unknown[]).length, 1);
  });

  it('the bundled contract needs no Prism at all', async () => {
    const plain = await startMock();
    try {
      assert.deepEqual(plain.prismOperations, []);
    } finally {
      await plain.close();
    }
  });
});
