/**
 * The one argv style of the project's CLIs (`node:util` `parseArgs`, strict): what a refused command
 * line did wrong, read from the error's `code` and the tokens, never from Node's English messages; and
 * the number option values (whole, or with decimals).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** What is wrong with a command line `parseArgs` refused. */
export type ArgvFault =
  | { kind: 'unknown-option'; option: string }
  | { kind: 'missing-value'; option: string }
  /** The next argument starts with "-" (it may be another option): `--opt=-5` says it is the value. */
  | { kind: 'ambiguous-value'; option: string }
  | { kind: 'unexpected-value'; option: string }
  | { kind: 'positional'; value: string };

function codeOf(error: unknown): string | undefined {
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Reads `error` (thrown by a strict `parseArgs` of `args` with `options`) as an ArgvFault; undefined
 * when it is not a parseArgs error.
 */
export function argvFault(
  error: unknown,
  args: readonly string[],
  options: NonNullable<ParseArgsConfig['options']>,
): ArgvFault | undefined {
  const code = codeOf(error);
  if (code === undefined || !code.startsWith('ERR_PARSE_ARGS_')) return undefined;
  const { tokens } = parseArgs({ args: [...args], options, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'positional' && code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return { kind: 'positional', value: token.value };
    if (token.kind !== 'option') continue;
    const type = options[token.name]?.type;
    if (type === undefined) {
      if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return { kind: 'unknown-option', option: token.rawName };
      continue;
    }
    if (code !== 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') continue;
    if (type === 'string' && token.value === undefined) return { kind: 'missing-value', option: token.rawName };
    if (type === 'string' && !token.inlineValue && token.value?.startsWith('-')) return { kind: 'ambiguous-value', option: token.rawName };
    if (type === 'boolean' && token.value !== undefined) return { kind: 'unexpected-value', option: token.rawName };
  }
  return undefined;
}

/** A plain sentence for an ArgvFault (CLIs may word their own). */
export function argvFaultText(fault: ArgvFault): string {
  switch (fault.kind) {
    case 'unknown-option':
      return `unknown option ${fault.option}`;
    case 'missing-value':
      return `option ${fault.option} needs a value`;
    case 'ambiguous-value':
      return `option ${fault.option} needs a value (write ${fault.option}=VALUE for a value starting with "-")`;
    case 'unexpected-value':
      return `option ${fault.option} takes no value`;
    case 'positional':
      return `unexpected argument "${fault.value}"; every option starts with --`;
  }
}

/**
 * `parseArgs(config)` for a CLI: a command line it refuses is thrown as `refuse(sentence)`, the sentence
 * `argvFaultText` words; any other error is thrown as it is.
 */
export function parseArgv<T extends ParseArgsConfig & { args: string[]; options: NonNullable<ParseArgsConfig['options']> }>(
  config: T,
  refuse: (sentence: string) => Error,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    const fault = argvFault(error, config.args, config.options);
    if (!fault) throw error;
    throw refuse(argvFaultText(fault));
  }
}

/**
 * The one number parser of option values: `text` from `min` to `max`, plain digits (no sign, exponent
 * or spaces) with one decimal point allowed when `decimals` is set (e.g. seconds: "0.5"); undefined otherwise.
 */
export function numberValue(text: string, { min = 0, max = Number.MAX_SAFE_INTEGER, decimals = false } = {}): number | undefined {
  if (!(decimals ? /^\d+(\.\d+)?$/ : /^\d+$/).test(text)) return undefined;
  const value = Number(text);
  return value >= min && value <= max && (decimals || Number.isSafeInteger(value)) ? value : undefined;
}

/** `text` as a whole number from `min` to `max` (digits only, no sign, no spaces); undefined otherwise. */
export function wholeNumber(text: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
  return numberValue(text, { min, max });
}
