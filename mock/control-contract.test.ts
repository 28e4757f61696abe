import assert from 'node:assert/strict';
import { compileErrors, validate } from '@readme/openapi-parser';
import { readContract } from '../contract/document.js';
import { CONTROL_CONTRACT_PATH } from './dashboard.js';
import type { MockServer } from './server.js';
import { startMock } from './testing.js';

describe('the mock-control contract (mock/control.openapi.yaml)', () => {
  let server: MockServer;
  before(async () => {
    server = await startMock();
  });
  after(() => server.close());

  it('is a valid OpenAPI 3.1 document (@readme/openapi-parser), with no warnings', async () => {
    const result = await validate(CONTROL_CONTRACT_PATH);
    assert.ok(result.valid, compileErrors(result));
    assert.deepEqual(result.warnings, []);
  });

  it('is served at GET /__mock/control.json, as parsed from the bundled YAML', async () => {
    const answer = await fetch(`${server.url}/__mock/control.json`);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(await answer.json(), readContract(CONTROL_CONTRACT_PATH));
  });
});
