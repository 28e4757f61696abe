import assert from 'node:assert/strict';
import { checkSuitePeers, SUITE_PEERS } from './peers.js';
import { StartError } from './start-error.js';

describe('conformance/peers: the suite needs mocha', () => {
  it('passes when they are installed (here: as dev dependencies)', () => {
    assert.deepEqual([...SUITE_PEERS], ['mocha']);
    checkSuitePeers();
  });

  it('a missing one stops the run before it starts (StartError, exit 2): what is missing, and the command that installs it', () => {
    assert.throws(
      () => checkSuitePeers(['mocha', 'no-such-runner-for-test']),
      (error: unknown) => {
        assert.ok(error instanceof StartError);
        assert.equal(
          error.reason,
          'the conformance suite needs no-such-runner-for-test, an optional peer dependency of goods-contract-harness not installed with it',
        );
        assert.equal(error.fix, 'install it: npm install -D no-such-runner-for-test');
        return true;
      },
    );
    assert.throws(
      () => checkSuitePeers(['no-such-a-for-test', 'no-such-b-for-test']),
      /install them: npm install -D no-such-a-for-test no-such-b-for-test$/,
    );
  });
});
