import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deref, listOperations, readContract, readContractFile, resolvePointer, sha256Hex } from './document.js';
import { CONTRACT_JSON_PATH, CONTRACT_YAML_PATH } from './paths.js';

describe('contract document (contract/document.ts)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'contract-document-'));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  describe('listOperations', () => {
    const operations = listOperations(readContract());
    const byId = new Map(operations.map((op) => [op.operationId, op]));

    it('lists exactly the three operations of the specification, with method, path and path parameters', () => {
      assert.deepEqual(
        operations.map((op) => [op.operationId, op.method, op.path, op.pathParams]),
        [
          ['getOrderInfo', 'get', '/manualProduction/rest/v1/orders/info/{number}', ['number']],
          ['createLotTransfer', 'post', '/goodsReception/rest/v1/lot-transfers/create', []],
          ['createTestSample', 'post', '/goodsReception/rest/v1/test-samples/create', []],
        ],
      );
    });

    it('marks every operation as secured (bearerAuth at the document level)', () => {
      assert.deepEqual(
        operations.map((op) => op.secured),
        [true, true, true],
      );
    });

    it('lists the responses with status, profile flag, content and examples', () => {
      const statuses = (id: string): string[] => (byId.get(id)?.responses ?? []).map((r) => r.status);
      assert.deepEqual(statuses('getOrderInfo'), ['200', '401', '404']);
      assert.deepEqual(statuses('createLotTransfer'), ['201', '400', '401', '413', '415', '422']);
      assert.deepEqual(statuses('createTestSample'), ['201', '400', '401', '413', '415', '422']);
      for (const op of operations) {
        for (const response of op.responses) {
          assert.equal(response.profile, !response.status.startsWith('2'), `${op.operationId} ${response.status}`);
          const mediaType = response.status.startsWith('2') ? 'application/json' : 'application/problem+json';
          assert.deepEqual([...response.content.keys()], [mediaType], `${op.operationId} ${response.status}`);
          assert.ok(response.examples.has(mediaType), `${op.operationId} ${response.status} has an example`);
        }
      }
      const unauthorized = byId.get('getOrderInfo')?.responses.find((r) => r.status === '401');
      assert.deepEqual(unauthorized?.headers, ['www-authenticate']);
      const ok = byId.get('getOrderInfo')?.responses.find((r) => r.status === '200');
      assert.deepEqual(ok?.content.get('application/json'), { $ref: '#/components/schemas/OrderInfo' });
    });

    it('reads the request bodies of the two create operations (none for GET)', () => {
      assert.equal(byId.get('getOrderInfo')?.requestBody, undefined);
      const transfer = byId.get('createLotTransfer')?.requestBody;
      assert.equal(transfer?.required, true);
      assert.deepEqual(transfer?.content.get('application/json'), { $ref: '#/components/schemas/LotTransferCreate' });
      assert.deepEqual(byId.get('createTestSample')?.requestBody?.content.get('application/json'), {
        $ref: '#/components/schemas/TestSampleCreate',
      });
    });

    it('an operation-level empty security list makes the operation unsecured', () => {
      const doc = readContract();
      const paths = doc['paths'] as Record<string, Record<string, Record<string, unknown>>>;
      const get = paths['/manualProduction/rest/v1/orders/info/{number}']?.['get'];
      assert.ok(get);
      get['security'] = [];
      assert.deepEqual(
        listOperations(doc).map((op) => op.secured),
        [false, true, true],
      );
    });
  });

  describe('references', () => {
    const doc = readContract();
    it('resolves local pointers and follows $ref chains', () => {
      assert.equal(resolvePointer(doc, '#/components/schemas/ScanCode/minLength'), 1);
      assert.equal(resolvePointer(doc, '#/components/schemas/Nope'), undefined);
      assert.equal(resolvePointer(doc, 'other.yaml#/x'), undefined);
      assert.equal(deref(doc, { $ref: '#/components/responses/Unauthorized' })?.['x-profile'], true);
    });
  });

  describe('readContract', () => {
    it('reads the YAML source and the generated JSON as the same document', () => {
      assert.deepEqual(readContract(CONTRACT_YAML_PATH), readContract());
    });

    it('names the file when it is missing', () => {
      const missing = join(dir, 'missing.yaml');
      assert.throws(() => readContract(missing), { message: new RegExp(`cannot read the contract ${missing}`) });
    });

    it('names the file and the syntax when the YAML or JSON is broken', () => {
      const yaml = join(dir, 'bad.yaml');
      writeFileSync(yaml, 'openapi: 3.1.0\ninfo: [unclosed\n');
      assert.throws(() => readContract(yaml), { message: new RegExp(`the contract ${yaml} is not valid YAML`) });
      const json = join(dir, 'bad.json');
      writeFileSync(json, '{"openapi": ');
      assert.throws(() => readContract(json), { message: new RegExp(`the contract ${json} is not valid JSON`) });
    });

    it('rejects a document that is not OpenAPI 3.1', () => {
      for (const [name, text] of [
        ['v30.yaml', 'openapi: 3.0.3\ninfo: {title: x, version: "1"}\npaths: {}\n'],
        ['swagger.yaml', 'swagger: "2.0"\n'],
        ['list.yaml', '- 1\n- 2\n'],
      ] as const) {
        const path = join(dir, name);
        writeFileSync(path, text);
        assert.throws(() => readContract(path), { message: new RegExp(`${path} is not an OpenAPI 3.1 document`) }, name);
      }
    });
  });

  describe('readContractFile', () => {
    it('answers the document, the path as given and the SHA-256 of the very bytes read', () => {
      for (const path of [CONTRACT_JSON_PATH, CONTRACT_YAML_PATH]) {
        const file = readContractFile(path);
        assert.equal(file.path, path);
        assert.deepEqual(file.document, readContract(path));
        assert.equal(file.sha256, createHash('sha256').update(readFileSync(path)).digest('hex'));
        assert.match(file.sha256, /^[0-9a-f]{64}$/);
      }
      assert.equal(readContractFile().path, CONTRACT_JSON_PATH);
    });

    it('the hash follows the bytes: the same document with one more line break is another contract', () => {
      const copy = join(dir, 'spaced.yaml');
      writeFileSync(copy, `${readFileSync(CONTRACT_YAML_PATH, 'utf8')}\n`);
      const spaced = readContractFile(copy);
      const original = readContractFile(CONTRACT_YAML_PATH);
      assert.deepEqual(spaced.document, original.document);
      assert.notEqual(spaced.sha256, original.sha256);
    });

    it('sha256Hex of a text hashes its UTF-8 form (the known SHA-256 of "abc")', () => {
      assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
      assert.equal(sha256Hex(Buffer.from('abc')), sha256Hex('abc'));
    });
  });
});
