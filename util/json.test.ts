import assert from 'node:assert/strict';
import { nestsDeeperThan, parseJsonText } from './json.js';

describe('util/json: parseJsonText', () => {
  it('answers the value of JSON text, and the parser message for anything else', () => {
    assert.deepEqual(parseJsonText('{"a":[1,null]}'), { ok: true, value: { a: [1, null] } });
    assert.deepEqual(parseJsonText('null'), { ok: true, value: null });
    const broken = parseJsonText('{"a":');
    assert.equal(broken.ok, false);
    assert.match(broken.ok ? '' : broken.reason, /JSON/);
  });

  it('measures nesting outside strings only', () => {
    assert.equal(nestsDeeperThan('[[1]]', 2), false);
    assert.equal(nestsDeeperThan('[[1]]', 1), true);
    assert.equal(nestsDeeperThan('{"a":[{"b":{}}]}', 4), false);
    assert.equal(nestsDeeperThan('{"a":[{"b":{}}]}', 3), true);
    assert.equal(nestsDeeperThan('["[[[[", "\\"[[[", {}]', 2), false, 'brackets in strings, escaped quotes');
    assert.equal(nestsDeeperThan('[],[],[],[]', 1), false, 'siblings do not add up');
    assert.equal(nestsDeeperThan('["a\\\\", [[1]]]', 2), true, 'an escaped backslash before a closing quote ends the string');
    assert.equal(nestsDeeperThan('["a\\\\\\"[[", 1]', 1), false, 'an odd run of backslashes escapes the quote');
    assert.equal(nestsDeeperThan('["\\"[[[', 1), false, 'an unterminated string hides what follows');
    assert.equal(nestsDeeperThan('[""]', 0), true);
  });

  it('measures nesting as a character-by-character reading does, on 20,000 seeded texts of brackets, quotes and backslashes', () => {
    const byCharacter = (text: string, maxDepth: number): boolean => {
      let depth = 0;
      let inString = false;
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (inString) {
          if (c === '\\') i++;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === '[' || c === '{') {
          if (++depth > maxDepth) return true;
        } else if (c === ']' || c === '}') depth--;
      }
      return false;
    };
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let run = 0; run < 20_000; run++) {
      const text = Array.from({ length: next(24) }, () => '[]{}"\\a,'[next(8)]).join('');
      const maxDepth = next(4);
      assert.equal(nestsDeeperThan(text, maxDepth), byCharacter(text, maxDepth), `${JSON.stringify(text)} at ${maxDepth}`);
    }
  });

  it('refuses, before parsing, text past its limits: 900,000 nested levels, or more characters than allowed', () => {
    const limits = { maxLength: 2_000_000, maxDepth: 128, what: 'the answer' };
    const deep = `${'['.repeat(900_000)}${']'.repeat(900_000)}`;
    assert.deepEqual(parseJsonText(deep, limits), { ok: false, reason: 'the answer nests deeper than 128 levels: not parsed' });
    const edge = `${'['.repeat(128)}${']'.repeat(128)}`;
    assert.equal(parseJsonText(edge, limits).ok, true, 'exactly the limit parses');
    assert.deepEqual(parseJsonText(`"${'x'.repeat(2_000_000)}"`, limits), {
      ok: false,
      reason: 'the answer is longer than 2,000,000 characters: not parsed',
    });
  });
});
