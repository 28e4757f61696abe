/**
 * `goods-conformance compat` as CI runs it, in a child process: the exit codes (0 compatible for what
 * --fail-on names, 1 breaking for it, 2 could not compare), the grouped console report, the one line
 * on stderr that names what could not be read and how to fix it.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runToExit, type Finished } from '../../support/processes.js';
import { projectCli } from '../../support/project-cli.js';
import { pairNamed, writePair } from '../testing/compat-pairs.js';

function compat(args: string[]): Promise<Finished> {
  return runToExit('goods-conformance compat', projectCli('conformance/cli', ['compat', ...args]), { timeoutMs: 60_000 });
}

describe('compat: the command for CI (goods-conformance compat OLD NEW)', function () {
  this.timeout(90_000);
  const paths = writePair(pairNamed('a request enum widened'));
  after(() => rmSync(paths.dir, { recursive: true, force: true }));

  it('exit 0 when compatible for what --fail-on names, 1 when breaking for it', async () => {
    const clients = await compat([paths.old, paths.new]);
    assert.equal(clients.code, 0, clients.output);
    assert.match(
      clients.stdout,
      /\nBreaking for clients \(0\)\n\nBreaking for servers \(1\)\n {2}createTestSample {2}request \/status enum/,
    );
    assert.match(clients.stdout, /Verdict: compatible for clients, breaking for servers; --fail-on clients: exit 0\n/);
    assert.equal(clients.stderr.replace(/^npm warn.*\n/gm, ''), '');
    const servers = await compat([paths.old, paths.new, '--fail-on', 'servers']);
    assert.equal(servers.code, 1, servers.output);
  });

  it('exit 2, one line naming the contract and the fix, when a contract cannot be read or is no OpenAPI 3.1', async () => {
    const missing = await compat([join(paths.dir, 'missing.yaml'), paths.new]);
    assert.equal(missing.code, 2, missing.output);
    assert.match(
      missing.stderr,
      /goods-conformance compat: the OLD contract: cannot read the contract .*missing\.yaml.*; pass a readable OpenAPI 3\.1 contract \(\.yaml or \.json\) as OLD\n/,
    );
    const swagger = join(paths.dir, 'swagger.yaml');
    writeFileSync(swagger, 'swagger: "2.0"\npaths: {}\n');
    const old = await compat([paths.old, swagger]);
    assert.equal(old.code, 2, old.output);
    assert.match(old.stderr, /the NEW contract: the contract .*swagger\.yaml is not an OpenAPI 3\.1 document/);
    assert.doesNotMatch(old.stderr, /\n {4}at /, 'no stack trace');
  });

  it('exit 2 for a command line it cannot use; --help exit 0', async () => {
    const one = await compat([paths.old]);
    assert.equal(one.code, 2);
    assert.match(one.stderr, /compat takes two contracts, OLD and NEW; got ".*old\.json"; pass e\.g\. goods-conformance compat/);
    const help = await compat(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: goods-conformance compat OLD NEW \[options\]/);
  });
});
