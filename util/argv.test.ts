import assert from 'node:assert/strict';
import { parseArgs } from 'node:util';
import { argvFault, argvFaultText, numberValue, parseArgv, wholeNumber, type ArgvFault } from './argv.js';

const OPTIONS = { port: { type: 'string' }, quiet: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

function faultOf(args: string[]): ArgvFault | undefined {
  try {
    parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false });
  } catch (error) {
    return argvFault(error, args, OPTIONS);
  }
  return undefined;
}

describe('util/argv: the CLIs’ argv faults and whole numbers', () => {
  it('reads each parseArgs refusal from its code and the tokens', () => {
    assert.deepEqual(faultOf(['--colour']), { kind: 'unknown-option', option: '--colour' });
    assert.deepEqual(faultOf(['-z']), { kind: 'unknown-option', option: '-z' });
    assert.deepEqual(faultOf(['--port']), { kind: 'missing-value', option: '--port' });
    assert.deepEqual(faultOf(['--port', '-5']), { kind: 'ambiguous-value', option: '--port' });
    assert.deepEqual(faultOf(['--quiet=yes']), { kind: 'unexpected-value', option: '--quiet' });
    assert.deepEqual(faultOf(['-h', 'extra']), { kind: 'positional', value: 'extra' });
    assert.equal(faultOf(['--port', '1']), undefined);
    assert.equal(argvFault(new Error('not from parseArgs'), [], OPTIONS), undefined);
  });

  it('words every fault naming the option or argument', () => {
    assert.equal(argvFaultText({ kind: 'unknown-option', option: '--x' }), 'unknown option --x');
    assert.match(argvFaultText({ kind: 'missing-value', option: '--p' }), /--p needs a value/);
    assert.match(argvFaultText({ kind: 'ambiguous-value', option: '--p' }), /--p=VALUE/);
    assert.match(argvFaultText({ kind: 'unexpected-value', option: '--q' }), /--q takes no value/);
    assert.match(argvFaultText({ kind: 'positional', value: 'x' }), /unexpected argument "x"/);
  });

  it('parseArgv: the values parsed; a refused command line thrown as the CLI words it; any other error as it is', () => {
    const refuse = (sentence: string): Error => new RangeError(`usage: ${sentence}`);
    const parsed = parseArgv({ args: ['--port', '8080', '--quiet'], options: OPTIONS, strict: true, allowPositionals: false }, refuse);
    assert.deepEqual({ ...parsed.values }, { port: '8080', quiet: true });
    assert.throws(
      () => parseArgv({ args: ['--colour'], options: OPTIONS, strict: true, allowPositionals: false }, refuse),
      (error: unknown) => error instanceof RangeError && error.message === 'usage: unknown option --colour',
    );
    // Not a refused command line (options parseArgs cannot take): thrown as it is, never worded as a usage error.
    const broken = { port: { type: 'number' } } as unknown as typeof OPTIONS;
    assert.throws(
      () => parseArgv({ args: ['--port', '1'], options: broken, strict: true, allowPositionals: false }, refuse),
      (error: unknown) =>
        !(error instanceof RangeError) && error instanceof Error && 'code' in error && error.code === 'ERR_INVALID_ARG_TYPE',
    );
  });

  it('takes whole numbers in range, digits only', () => {
    assert.equal(wholeNumber('0'), 0);
    assert.equal(wholeNumber('65535', 0, 65535), 65535);
    for (const text of ['', '-1', '1.5', '1e3', ' 1', 'x', '65536', '99999999999999999999'])
      assert.equal(wholeNumber(text, 0, text === '65536' ? 65535 : Number.MAX_SAFE_INTEGER), undefined, text);
    assert.equal(wholeNumber('4', 5), undefined);
  });

  it('takes decimals only when asked, digits and one point only', () => {
    assert.equal(numberValue('0.5', { decimals: true }), 0.5);
    assert.equal(numberValue('3', { decimals: true }), 3);
    assert.equal(numberValue('0.5'), undefined);
    for (const text of ['', '.5', '1.', '1e3', '-1', ' 1', '0x10', '1.2.3'])
      assert.equal(numberValue(text, { decimals: true }), undefined, text);
    assert.equal(numberValue('0.0', { decimals: true, min: Number.MIN_VALUE }), undefined);
  });
});
