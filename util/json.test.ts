import assert from 'node:assert/strict';
import { parseJsonText } from './json.js';

describe('util/json: parseJsonText', () => {
  it('answers the value of JSON text, and the parser message for anything else', () => {
    assert.deepEqual(parseJsonText('{"a":[1,null]}'), { ok: true, value: { a: [1, null] } });
    assert.deepEqual(parseJsonText('null'), { ok: true, value: null });
    const broken = parseJsonText('{"a":');
    assert.equal(broken.ok, false);
    assert.match(broken.ok ? '' : broken.reason, /JSON/);
  });
});
