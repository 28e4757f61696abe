/** CHANGELOG.md keeps the Keep a Changelog shape and names the package's version. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';

const changelog = readFileSync(join(PROJECT_ROOT, 'CHANGELOG.md'), 'utf8');
const { version } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
const SECTIONS = new Set(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security']);

describe('CHANGELOG.md (Keep a Changelog)', () => {
  const versions = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map((m) => ({ name: m[1] ?? '', date: m[2] }));

  it('opens with Unreleased, then each released version with its date, newest first', () => {
    assert.equal(versions[0]?.name, 'Unreleased');
    const released = versions.slice(1);
    assert.ok(released.length > 0, 'at least one released version');
    for (const v of released) assert.match(v.date ?? '', /^\d{4}-\d{2}-\d{2}$/, `${v.name} has a date`);
    const dates = released.map((v) => v.date ?? '');
    assert.deepEqual(dates, [...dates].sort().reverse(), 'newest first');
  });

  it("names package.json's version as a released version", () => {
    assert.ok(
      versions.some((v) => v.name === version),
      `## [${version}] - DATE`,
    );
  });

  it('uses only the standard change sections', () => {
    for (const m of changelog.matchAll(/^### (.+)$/gm)) assert.ok(SECTIONS.has(m[1] ?? ''), `### ${m[1] ?? ''}`);
  });

  it('links every version heading', () => {
    for (const v of versions) assert.match(changelog, new RegExp(`^\\[${v.name.replace(/\./g, '\\.')}\\]: https://`, 'm'), v.name);
  });
});
