/**
 * A contract as the attack: what a team may put in `--contract` never freezes the mock, the suite or
 * `compat`, and a contract that cannot be used stops them at start with one line naming the file and
 * where in it.
 *
 * - A catastrophic pattern (`^(a+)+$` on the scan codes; JavaScript's RegExp takes minutes on 32
 *   characters ending in `!`): the mock answers the create 400 and an order read sent meanwhile within
 *   1 s (before: no answer to either within 20 s); `compat --prove` on it ends with its verdict.
 * - A `$ref` cycle that never reaches a schema (before: "Maximum call stack size exceeded"; compat gave a
 *   verdict) and a pattern RE2 cannot evaluate: mock exit 1, suite and compat exit 2.
 * - A valid recursive schema (a tree node whose children are nodes) keeps working in the mock, the
 *   suite and compat (`--prove` runs both).
 */
import { figure } from '../../support/figures.js';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readContract, type JsonObject } from '../../contract/document.js';
import { runToExit, type Finished } from '../../support/processes.js';
import { projectCli } from '../../support/project-cli.js';
import { ORDER_PATH, TRANSFERS_PATH } from './support/corpus-types.js';
import { mockCli, startMockProcess, type MockProcess } from './support/mock-process.js';
import { discoverTarget } from './support/run-corpus.js';

const TOKEN = 'contract-attack-token';
const ORDER = 'ORD-2026-0001';
const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

/** The bundled contract with its component schemas changed by `edit`, written as JSON into `dir`. */
function contractFile(dir: string, name: string, edit: (schemas: JsonObject) => void): string {
  const document = structuredClone(readContract());
  edit((document['components'] as { schemas: JsonObject }).schemas);
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(document, null, 2));
  return path;
}

function cli(name: 'mock/cli' | 'conformance/cli', args: string[], timeoutMs = 60_000): Promise<Finished> {
  const line = name === 'mock/cli' ? mockCli(['--port', '0', ...args]) : projectCli(name, args);
  return runToExit(name, line, { env: { ...process.env, PORT: '', CONFORMANCE_TOKEN: '' }, timeoutMs });
}

/** One request on a fresh connection: status, body, and the milliseconds from sending to the end of the answer. */
function send(mock: MockProcess, method: string, path: string, body?: string): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: mock.host,
        port: mock.port,
        method,
        path,
        agent: false,
        headers: {
          Authorization: `Bearer ${TOKEN}`,
          ...(body !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } : {}),
        },
        timeout: 20_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, ms: performance.now() - started }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer to ${method} ${path} within 20 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** The one line a refused start wrote (stderr), checked to be one line. */
function oneLine(run: Finished): string {
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, run.output);
  return lines[0] ?? '';
}

describe('hardening: a contract as the attack (patterns, $ref cycles, recursion)', function () {
  this.timeout(240_000);
  const dir = mkdtempSync(join(tmpdir(), 'contract-attacks-'));
  const redos = contractFile(dir, 'redos', (schemas) => {
    (schemas['ScanCode'] as JsonObject)['pattern'] = '^(a+)+$';
  });
  const selfCycle = contractFile(dir, 'self-cycle', (schemas) => {
    schemas['ScanCode'] = ref('ScanCode');
  });
  const chainCycle = contractFile(dir, 'chain-cycle', (schemas) => {
    schemas['ScanCodeB'] = { allOf: [ref('ScanCode')] };
    schemas['ScanCode'] = ref('ScanCodeB');
  });
  const lookahead = contractFile(dir, 'lookahead', (schemas) => {
    (schemas['ScanCode'] as JsonObject)['pattern'] = '^(?=S)[A-Z0-9-]+$';
  });
  const tree = contractFile(dir, 'tree', (schemas) => {
    schemas['Node'] = {
      type: 'object',
      properties: { name: { type: 'string' }, children: { type: 'array', items: ref('Node') } },
    };
    const fields = schemas['LotTransferFields'] as { properties: JsonObject };
    fields.properties['tree'] = ref('Node');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('the catastrophic pattern ^(a+)+$ on the scan codes', () => {
    let mock: MockProcess;
    let lot = 0;
    before(async () => {
      mock = await startMockProcess(['--quiet', '--contract', redos]);
      lot = (await discoverTarget(mock.url, TOKEN)).lotIds[0] ?? 0;
    });
    after(() => mock.stop());

    it('the mock answers a create with a 32-byte "aaa…a!" 400, and an order read sent meanwhile within 1 s', async () => {
      const evil = `${'a'.repeat(31)}!`;
      assert.equal(evil.length, 32);
      const body = JSON.stringify({ fk_lot_id: lot, source_scancode: evil, target_scancode: evil, amount: 1 });
      const creates = [1, 2, 3, 4].map(() => send(mock, 'POST', TRANSFERS_PATH, body));
      const read = await send(mock, 'GET', `${ORDER_PATH}${ORDER}`);
      assert.equal(read.status, 200);
      assert.ok(read.ms < 1000, `the order read took ${Math.round(read.ms)} ms (before: no answer within 20 s)`);
      figure('pattern-attack-read-seconds', read.ms / 1000);
      for (const create of await Promise.all(creates)) {
        assert.equal(create.status, 400, create.body);
        assert.match(create.body, /\/source_scancode must match pattern \\"\^\(a\+\)\+\$\\"/);
        assert.ok(create.ms < 1000, `a create took ${Math.round(create.ms)} ms`);
      }
      const valid = await send(
        mock,
        'POST',
        TRANSFERS_PATH,
        JSON.stringify({ fk_lot_id: lot, source_scancode: 'aaa', target_scancode: 'a', amount: 1 }),
      );
      assert.equal(valid.status, 201, valid.body);
      assert.ok(mock.alive());
    });

    it('compat --prove on it ends with its verdict: the pattern is breaking, and the proof shows it', async () => {
      const run = await cli('conformance/cli', ['compat', contractPathOfBundle(), redos, '--prove', '--fail-on', 'clients'], 180_000);
      assert.equal(run.timedOut, false, run.output);
      assert.equal(run.code, 1, run.output);
      assert.match(run.stdout, /Verdict: breaking/);
      assert.match(run.stdout, /source_scancode pattern/);
    });
  });

  describe('a contract that cannot be used stops each tool at start, one line naming the file and where', () => {
    it('a $ref cycle (to itself; through allOf): mock exit 1, suite and compat exit 2, the chain of references named', async () => {
      const chain =
        /#\/components\/schemas\/ScanCode → #\/components\/schemas\/ScanCodeB → #\/components\/schemas\/ScanCodeB\/allOf\/0 → #\/components\/schemas\/ScanCode/;
      const mock = await cli('mock/cli', ['--contract', selfCycle]);
      assert.equal(mock.code, 1, mock.output);
      assert.match(
        oneLine(mock),
        /^goods-mock: cannot start: the contract .*self-cycle\.json has a \$ref cycle that never reaches a schema: #\/components\/schemas\/ScanCode → #\/components\/schemas\/ScanCode; .*break the cycle/,
      );
      const mockChain = await cli('mock/cli', ['--contract', chainCycle]);
      assert.equal(mockChain.code, 1, mockChain.output);
      assert.match(oneLine(mockChain), chain);
      const suite = await cli('conformance/cli', ['--contract', chainCycle]);
      assert.equal(suite.code, 2, suite.output);
      assert.match(oneLine(suite), /chain-cycle\.json has a \$ref cycle/);
      assert.match(oneLine(suite), chain);
      assert.doesNotMatch(suite.output, /Maximum call stack|report this/);
      const compat = await cli('conformance/cli', ['compat', contractPathOfBundle(), selfCycle]);
      assert.equal(compat.code, 2, compat.output);
      assert.match(
        oneLine(compat),
        /^goods-conformance compat: the NEW contract: the contract .*self-cycle\.json has a \$ref cycle .*; correct the NEW contract there$/,
      );
    });

    it('a pattern RE2 cannot evaluate (a lookahead): mock exit 1, suite exit 2, its JSON Pointer named', async () => {
      const where = /the pattern "\^\(\?=S\)\[A-Z0-9-\]\+\$" at #\/components\/schemas\/ScanCode\/pattern: it uses a lookahead/;
      const mock = await cli('mock/cli', ['--contract', lookahead]);
      assert.equal(mock.code, 1, mock.output);
      assert.match(oneLine(mock), where);
      const suite = await cli('conformance/cli', ['--contract', lookahead]);
      assert.equal(suite.code, 2, suite.output);
      assert.match(oneLine(suite), where);
    });
  });

  describe('a valid recursive schema (a tree node whose children are nodes)', () => {
    it('the mock records and answers a nested tree', async () => {
      const mock = await startMockProcess(['--quiet', '--contract', tree]);
      try {
        const lot = (await discoverTarget(mock.url, TOKEN)).lotIds[0] ?? 0;
        const nested = { name: 'root', children: [{ name: 'a', children: [{ name: 'b', children: [] }] }] };
        const body = JSON.stringify({ fk_lot_id: lot, source_scancode: 'S', target_scancode: 'T', amount: 1, tree: nested });
        const created = await send(mock, 'POST', TRANSFERS_PATH, body);
        assert.equal(created.status, 201, created.body);
        assert.deepEqual((JSON.parse(created.body) as { tree: unknown }).tree, nested);
        const wrong = await send(mock, 'POST', TRANSFERS_PATH, body.replace('"name":"b"', '"name":7'));
        assert.equal(wrong.status, 400, wrong.body);
        assert.match(wrong.body, /\/tree\/children\/0\/children\/0\/name/);
      } finally {
        await mock.stop();
      }
    });

    it('compat --prove runs the mock and the suite of both contracts: compatible, the proof agrees', async () => {
      const run = await cli('conformance/cli', ['compat', contractPathOfBundle(), tree, '--prove'], 180_000);
      assert.equal(run.timedOut, false, run.output);
      assert.equal(run.code, 0, run.output);
      assert.doesNotMatch(run.output, /Maximum call stack|report this/);
    });
  });
});

/** The bundled contract's file, as the CLIs read it. */
function contractPathOfBundle(): string {
  return 'contract/openapi.yaml';
}
