import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installCommand, missingPeers, MissingPeersError, requirePeers } from './peer.js';

const manifest = JSON.parse(readFileSync(join(fileURLToPath(import.meta.url), '..', '..', 'package.json'), 'utf8')) as {
  name: string;
  devDependencies: Record<string, string>;
};

describe('util/peer: optional peer dependencies', () => {
  it('missingPeers: the names that do not resolve from this package (an installed one resolves, ES module only ones too)', () => {
    assert.deepEqual(missingPeers(['json-schema-faker']), [], 'json-schema-faker 0.6 has no CommonJS entry');
    assert.deepEqual(missingPeers(['mocha', 'no-such-package-for-peer-test', '@no-such-scope/pkg']), [
      'no-such-package-for-peer-test',
      '@no-such-scope/pkg',
    ]);
    assert.deepEqual(missingPeers([]), []);
  });

  it('installCommand: the versions the package is developed with (devDependencies), a bare name when it has none', () => {
    assert.equal(
      installCommand(['mocha', '@stoplight/prism-http']),
      `npm install -D mocha@${manifest.devDependencies['mocha'] ?? '?'} @stoplight/prism-http@${manifest.devDependencies['@stoplight/prism-http'] ?? '?'}`,
    );
    assert.equal(installCommand(['no-such-package-for-peer-test']), 'npm install -D no-such-package-for-peer-test');
    assert.equal(
      installCommand(['a', 'b', 'c'], { devDependencies: { a: '1.2.3' }, peerDependencies: { a: '^1.0.0', b: '>=2.0.0 <3' } }),
      "npm install -D a@1.2.3 b@'>=2.0.0 <3' c",
    );
  });

  it('requirePeers: nothing when every one resolves; else one error naming each missing one and the command', () => {
    requirePeers(['mocha', '@stoplight/prism-http'], 'the test');
    assert.throws(
      () => requirePeers(['mocha', 'no-such-a-for-peer-test', 'no-such-b-for-peer-test'], 'the test'),
      (error: unknown) => {
        assert.ok(error instanceof MissingPeersError);
        assert.deepEqual(error.missing, ['no-such-a-for-peer-test', 'no-such-b-for-peer-test']);
        assert.equal(error.install, 'npm install -D no-such-a-for-peer-test no-such-b-for-peer-test');
        assert.equal(
          error.message,
          `the test needs no-such-a-for-peer-test and no-such-b-for-peer-test, optional peer dependencies of ${manifest.name} not installed with it: npm install -D no-such-a-for-peer-test no-such-b-for-peer-test`,
        );
        return true;
      },
    );
    assert.throws(
      () => requirePeers(['no-such-a-for-peer-test'], 'the test'),
      new RegExp(
        `^MissingPeersError: the test needs no-such-a-for-peer-test, an optional peer dependency of ${manifest.name} not installed`,
      ),
    );
  });
});
