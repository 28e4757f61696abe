/** mock/state.ts: the session a request names (`X-Mock-Session`), checked. */
import assert from 'node:assert/strict';
import { ProblemError, PROBLEMS } from './problems.js';
import { DEFAULT_SESSION, SESSION_HEADER, sessionName } from './state.js';

/** Asserts that `header` is refused with the 400 invalid-session problem. */
function refused(header: string | string[]): void {
  assert.throws(
    () => sessionName(header),
    (error: unknown) => error instanceof ProblemError && error.kind === PROBLEMS.invalidSession && error.kind.status === 400,
    `refused: ${JSON.stringify(header)}`,
  );
}

describe('mock/state: session names', () => {
  it('names the header in lower case (as Node gives request headers)', () => {
    assert.equal(SESSION_HEADER, 'x-mock-session');
  });

  it('no header is the default session', () => {
    assert.equal(DEFAULT_SESSION, 'default');
    assert.equal(sessionName(undefined), DEFAULT_SESSION);
  });

  it('accepts 1 to 64 characters of A-Z, a-z, 0-9, ".", "_" and "-", unchanged', () => {
    for (const name of ['a', 'Z', '0', 'team-a.run_7', '...', `${'x'.repeat(63)}y`, 'default']) assert.equal(sessionName(name), name);
    assert.equal(sessionName('x'.repeat(64)).length, 64);
  });

  it('refuses an empty name, 65 characters, and every other character', () => {
    refused('');
    refused('x'.repeat(65));
    for (const bad of [' ', 'a b', 'a/b', 'a,b', 'a:b', 'é', 'a\tb', '*', '%41', 'a\u0000']) refused(bad);
  });

  it('refuses a name repeated on two header lines (joined with ",")', () => {
    refused(['a', 'b']);
    refused(['a', 'a']);
  });

  it('the problem says what a valid name is', () => {
    try {
      sessionName('no way');
      assert.fail('not refused');
    } catch (error) {
      assert.ok(error instanceof ProblemError);
      assert.deepEqual(error.body(), {
        type: 'https://goods.example/problems/invalid-session',
        title: PROBLEMS.invalidSession.title,
        status: 400,
        detail: 'The X-Mock-Session header must be 1 to 64 characters of A-Z, a-z, 0-9, ".", "_" or "-".',
      });
    }
  });
});
