/**
 * Every problem of the catalogue is documented (as fastify does for its errors): the README's table
 * "Errors the mock answers" lists each type of `PROBLEMS` with its status and title, and nothing else.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';
import { PROBLEMS } from './problems.js';

const BASE = 'https://goods.example/problems/';

/** `type slug → "status title"` from the README's table. */
function documented(): Map<string, string> {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const section = /^#{2,3} Errors the mock answers\n([\s\S]*?)^#/m.exec(readme)?.[1] ?? '';
  const rows = new Map<string, string>();
  for (const match of section.matchAll(/^\| `([a-z-]+)` +\| (\d{3}) +\| ([^|]+?) +\|/gm))
    rows.set(match[1] ?? '', `${match[2]} ${match[3]}`);
  return rows;
}

describe('mock/problems: the error catalogue', () => {
  it('finds the README table (the check can fail)', () => {
    assert.ok(documented().size > 10, 'the README has no "Errors the mock answers" table');
  });

  it('documents every catalogue entry in the README with its status and title, and nothing that is not in it', () => {
    const rows = documented();
    const catalogue = new Map<string, string>();
    for (const [name, kind] of Object.entries(PROBLEMS)) {
      assert.ok(kind.type.startsWith(BASE), `${name}: ${kind.type}`);
      const slug = kind.type.slice(BASE.length);
      const text = `${kind.status} ${kind.title}`;
      assert.equal(catalogue.get(slug) ?? text, text, `${name} shares type ${slug} with another entry of another status or title`);
      catalogue.set(slug, text);
    }
    assert.deepEqual(Object.fromEntries([...rows].sort()), Object.fromEntries([...catalogue].sort()));
  });
});
