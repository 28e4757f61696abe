import assert from 'node:assert/strict';
import { compileErrors, validate } from '@readme/openapi-parser';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { CONTRACT_YAML_PATH } from './paths.js';

describe('the contract passes @readme/openapi-parser validate', () => {
  it('contract/openapi.yaml is a valid OpenAPI 3.1 document, with no warnings', async () => {
    const result = await validate(CONTRACT_YAML_PATH);
    assert.ok(result.valid, compileErrors(result));
    assert.equal(result.specification, 'OpenAPI');
    assert.deepEqual(result.warnings, []);
  });

  it('the same parser rejects a broken copy (the check can fail)', async () => {
    const broken = readFileSync(CONTRACT_YAML_PATH, 'utf8').replace('operationId: createTestSample', 'operationId: createLotTransfer');
    const result = await validate(parse(broken) as Parameters<typeof validate>[0]);
    assert.equal(result.valid, false);
    assert.match(compileErrors(result), /operationId/i);
  });
});
