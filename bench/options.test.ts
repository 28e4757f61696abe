import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS, parseBenchArgs, QUICK_SETTINGS, UsageError } from './options.js';

describe('bench/options: parseBenchArgs', () => {
  it('answers the defaults with no options, and the quick settings with --quick', () => {
    assert.deepEqual(parseBenchArgs([]).settings, DEFAULT_SETTINGS);
    assert.deepEqual(parseBenchArgs(['--quick']).settings, QUICK_SETTINGS);
    assert.match(parseBenchArgs([]).output, /reports\/bench\.json$/);
  });

  it('takes durations in seconds, counts, a server list, --no-conformance and --no-self-test', () => {
    const { settings } = parseBenchArgs([
      '--duration',
      '0.5',
      '--warmup',
      '0',
      '--rounds',
      '2',
      '--connections',
      '8',
      '--transfers',
      '0',
      '--servers',
      'bare,mock',
      '--no-conformance',
      '--no-self-test',
    ]);
    assert.equal(settings.durationMs, 500);
    assert.equal(settings.warmupMs, 0);
    assert.equal(settings.rounds, 2);
    assert.equal(settings.connections, 8);
    assert.equal(settings.transfers, 0);
    assert.deepEqual(settings.servers, ['mock', 'bare']);
    assert.equal(settings.conformance, false);
    assert.equal(settings.selfTest, false);
    assert.equal(parseBenchArgs(['--quick']).settings.selfTest, true, 'the quick run keeps the self-test');
  });

  it('takes the latencies of the time-to-verdict table, or none', () => {
    assert.deepEqual(parseBenchArgs([]).settings.verdictLatenciesMs, [0, 100, 1000]);
    assert.deepEqual(parseBenchArgs(['--quick']).settings.verdictLatenciesMs, [0, 100], 'the quick run leaves out the 1 s row');
    assert.deepEqual(parseBenchArgs(['--verdict-latencies', '0, 250']).settings.verdictLatenciesMs, [0, 250]);
    assert.deepEqual(parseBenchArgs(['--verdict-latencies', 'none']).settings.verdictLatenciesMs, []);
    assert.throws(() => parseBenchArgs(['--verdict-latencies', '1s']), UsageError);
  });

  it('rejects bad values and unknown options with a UsageError naming the option', () => {
    for (const [args, name] of [
      [['--duration', 'x'], '--duration'],
      [['--duration', '0'], '--duration'],
      [['--rounds', '1.5'], '--rounds'],
      [['--servers', 'mock,express'], 'express'],
      [['--bogus'], 'bogus'],
    ] as const)
      assert.throws(
        () => parseBenchArgs([...args]),
        (error: unknown) => error instanceof UsageError && error.message.includes(name),
        args.join(' '),
      );
  });
});
