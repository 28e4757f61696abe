/**
 * `--contract FILE` (`config.contractPath`): the run judges against that file, read once, and the
 * in-process mock serves the same file; the reports name it with the SHA-256 of its bytes. A contract
 * that cannot be read, parsed or used is a StartError (exit 2) naming the file and the reason.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isObject, readContract, resolvePointer } from '../contract/document.js';
import { schemaExtensions } from '../contract/extensions.js';
import { CONTRACT_JSON_PATH, CONTRACT_YAML_PATH, shownPath } from '../contract/paths.js';
import { resolveConformanceConfig } from './config.js';
import { inMemoryContract, loadContract } from './contract-option.js';
import { IN_MEMORY_CONTRACT } from '../report/results.js';
import { runConformance } from './run.js';
import { StartError } from './start-error.js';

const sha256Of = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** A run against the in-process mock, printing nothing and writing no report file. */
const run = (contractPath: string) =>
  runConformance(resolveConformanceConfig({ contractPath, level: 'spec', seed: 7, reporters: ['console'] }), { write: () => undefined });

/** A StartError whose reason and fix match. */
function startError(reason: RegExp, fix: RegExp): (error: unknown) => boolean {
  return (error: unknown) => {
    assert.ok(error instanceof StartError, String(error));
    assert.match(error.reason, reason);
    assert.match(error.fix, fix);
    return true;
  };
}

describe('conformance --contract FILE', function () {
  this.timeout(20_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'conformance-contract-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a copy of the contract (YAML): exit 0, and the verdict names that file and the SHA-256 of its bytes', async () => {
    const copy = join(dir, 'openapi.yaml');
    copyFileSync(CONTRACT_YAML_PATH, copy);
    const result = await run(copy);
    assert.equal(result.exitCode, 0, JSON.stringify(result.verdict.unchecked));
    assert.deepEqual(result.verdict.contract, { path: shownPath(copy), sha256: sha256Of(copy) });
    assert.notEqual(result.verdict.contract.sha256, sha256Of(CONTRACT_JSON_PATH), 'the YAML copy, not the bundled JSON');
  });

  it('the in-process mock serves the same file: a contract its fixtures break stops the mock (exit 2), not the suite', async () => {
    const tight = join(dir, 'tight.yaml');
    const yaml = readFileSync(CONTRACT_YAML_PATH, 'utf8');
    const member = '        orderNumber:\n          type: string\n';
    assert.ok(yaml.includes(member), 'the order schema names orderNumber as a string');
    writeFileSync(tight, yaml.replace(member, `${member}          maxLength: 3\n`));
    // The suite can judge against it (the operations model is unchanged) ...
    assert.equal(loadContract(tight).judged.sha256, sha256Of(tight));
    // ... but the mock, given the same file, refuses its fixture orders.
    await assert.rejects(run(tight), startError(/^the in-process mock did not start: .*orderNumber/s, /fit --contract FILE/));
  });

  it('without --contract: the bundled contract, named relative to the current folder', () => {
    const loaded = loadContract(undefined);
    assert.deepEqual(loaded.judged, { path: shownPath(CONTRACT_JSON_PATH), sha256: sha256Of(CONTRACT_JSON_PATH) });
    assert.deepEqual(loaded.document, readContract());
  });

  it('a document handed over as an object is named (in memory), hashed as its JSON', () => {
    const document = readContract();
    const loaded = inMemoryContract(document);
    assert.equal(loaded.document, document);
    assert.deepEqual(loaded.judged, {
      path: IN_MEMORY_CONTRACT,
      sha256: createHash('sha256').update(JSON.stringify(document)).digest('hex'),
    });
  });

  it('broken YAML: a StartError naming the file and the parser reason, before anything starts', async () => {
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'openapi: 3.1.0\ninfo: [unclosed\n');
    const fix = /pass --contract with a readable OpenAPI 3\.1 contract \(\.yaml or \.json\), or leave --contract out/;
    await assert.rejects(run(broken), startError(new RegExp(`^the contract ${broken} is not valid YAML: `), fix));
  });

  it('a missing file, or one that is not OpenAPI 3.1: a StartError naming the file', () => {
    const missing = join(dir, 'missing.json');
    assert.throws(() => loadContract(missing), startError(new RegExp(`^cannot read the contract ${missing}: .*ENOENT`), /--contract/));
    const swagger = join(dir, 'swagger.json');
    writeFileSync(swagger, '{"swagger": "2.0"}');
    assert.throws(
      () => loadContract(swagger),
      startError(new RegExp(`^the contract ${swagger} is not an OpenAPI 3\\.1 document`), /--contract/),
    );
  });

  it('a contract the operations model cannot be derived from: a StartError with what it lacks and the fix', () => {
    const document = readContract();
    const bare = join(dir, 'bare.json');
    writeFileSync(bare, JSON.stringify({ ...document, paths: {} }));
    assert.throws(
      () => loadContract(bare),
      startError(
        new RegExp(`^cannot judge against the contract ${shownPath(bare)}: the contract does not state `),
        /add it to the contract .*, or leave --contract out/,
      ),
    );
  });

  it('a malformed extension: a StartError naming its JSON Pointer, the fix to correct it there', () => {
    const document = readContract();
    const site = schemaExtensions(document).find((s) => s.defaultSequence !== undefined);
    assert.ok(site !== undefined, 'the bundled contract has an x-default-sequence');
    const node = resolvePointer(document, `#${site.pointer}`);
    assert.ok(isObject(node));
    node['x-default-sequence'] = { prefix: 'S-' };
    const malformed = join(dir, 'malformed-extension.json');
    writeFileSync(malformed, JSON.stringify(document));
    assert.throws(
      () => loadContract(malformed),
      startError(
        new RegExp(
          `^cannot judge against the contract ${shownPath(malformed)}: x-default-sequence needs "width".* \\(at ${site.pointer}/x-default-sequence\\)$`,
        ),
        /^correct the contract there, or leave --contract out/,
      ),
    );
  });
});
