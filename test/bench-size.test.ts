/**
 * The bench stays small enough to change in one sitting: its sources (tests aside) hold at most
 * 1,300 lines, counted as `wc -l` counts them. Every measurement it makes is required; room is made by
 * sharing a helper, driving a repetition from a table or shortening a comment, never by dropping one.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../contract/paths.js';

const BENCH_MAX_LINES = 1300;

describe('bench/ size', () => {
  it(`bench/'s sources, tests aside, have at most ${BENCH_MAX_LINES.toLocaleString('en-US')} lines`, () => {
    const dir = join(PROJECT_ROOT, 'bench');
    const files = readdirSync(dir).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
    const counts = files.map((name) => [name, readFileSync(join(dir, name), 'utf8').split('\n').length - 1] as const);
    const total = counts.reduce((sum, [, lines]) => sum + lines, 0);
    assert.ok(files.length > 0, 'no sources in bench/');
    const largest = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 3);
    assert.ok(total <= BENCH_MAX_LINES, `bench/ has ${total} lines (largest: ${largest.map(([n, l]) => `${n} ${l}`).join(', ')})`);
  });
});
