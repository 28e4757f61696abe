/**
 * The contract's `pattern` keywords, evaluated in linear time.
 *
 * JavaScript's `RegExp` backtracks: `^(a+)+$` against 32 characters ending in `!` takes minutes and
 * blocks the event loop for every client. Every pattern the contract carries is therefore matched by
 * RE2's algorithm (`re2js`, a pure-JavaScript port of RE2: time linear in the input, whatever the
 * pattern), through ajv's `code.regExp` option in `schemas.ts`: the mock's validation, the suite's case
 * derivation and judging, `compat` and the proxy all compile their validators there.
 *
 * JSON Schema patterns are ECMA-262 regular expressions (Unicode mode). Before RE2 compiles one, it is
 * checked with JavaScript's own parser (compiling is linear; only matching backtracks) and the few
 * classes whose meaning differs are spelled out, so a pattern matches what it matches in JavaScript:
 * `\s` and `\S` (Unicode white space in ECMA-262, ASCII in RE2), `.` (no line terminator in ECMA-262, only
 * no `\n` in RE2) and `[\b]` (a backspace). Backreferences and lookaround have no linear-time evaluation:
 * such a pattern is refused with the construct named (see `patternProblem`).
 */
import { RE2JS } from 're2js';
import type { CodeOptions } from 'ajv/dist/2020.js';
import { messageOf } from '../util/errors.js';

/** What ajv needs of a compiled pattern. */
interface LinearPattern {
  test(text: string): boolean;
  toString(): string;
}

/** ECMA-262 WhiteSpace and LineTerminator code points (what `\s` matches there), as ranges. */
const ECMA_SPACE: readonly (readonly [number, number])[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
/** ECMA-262 LineTerminator code points (what `.` does not match there). */
const ECMA_LINE_END: readonly (readonly [number, number])[] = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];

const hex = (code: number): string => `\\x{${code.toString(16).toUpperCase()}}`;
const rangesText = (ranges: readonly (readonly [number, number])[]): string =>
  ranges.map(([from, to]) => (from === to ? hex(from) : `${hex(from)}-${hex(to)}`)).join('');
/** Every code point outside `ranges` (sorted, disjoint), as ranges: usable inside a class, unlike `[^...]`. */
function complement(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const out: [number, number][] = [];
  let next = 0;
  for (const [from, to] of ranges) {
    if (from > next) out.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}
const SPACE = rangesText(ECMA_SPACE);
const NOT_SPACE = rangesText(complement(ECMA_SPACE));
const NOT_LINE_END = rangesText(complement(ECMA_LINE_END));

/** The constructs RE2 cannot evaluate (in linear time or at all), as a reader would name them. */
const UNSUPPORTED: readonly { pattern: RegExp; name: string }[] = [
  { pattern: /^\(\?=/, name: 'a lookahead "(?=...)"' },
  { pattern: /^\(\?!/, name: 'a negative lookahead "(?!...)"' },
  { pattern: /^\(\?<=/, name: 'a lookbehind "(?<=...)"' },
  { pattern: /^\(\?<!/, name: 'a negative lookbehind "(?<!...)"' },
  { pattern: /^\\[1-9]/, name: 'a backreference "\\N"' },
  { pattern: /^\\k</, name: 'a named backreference "\\k<name>"' },
];

/**
 * The pattern in RE2's syntax with ECMA-262's meaning (see the module comment), or the construct that
 * has no RE2 equivalent. Escapes are read pairwise, so `\\.` stays a literal dot.
 */
function toRe2(source: string): { ok: true; re2: string } | { ok: false; construct: string } {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i] ?? '';
    if (!inClass) {
      const unsupported = UNSUPPORTED.find((u) => u.pattern.test(source.slice(i, i + 4)));
      if (unsupported) return { ok: false, construct: unsupported.name };
    }
    if (ch === '\\') {
      const next = source[i + 1] ?? '';
      i++;
      if (next === 's') out += inClass ? SPACE : `[${SPACE}]`;
      else if (next === 'S') out += inClass ? NOT_SPACE : `[${NOT_SPACE}]`;
      else if (next === 'b' && inClass) out += '\\x08';
      else out += `\\${next}`;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      out += ch;
    } else if (ch === '[') {
      inClass = true;
      out += ch;
      if (source[i + 1] === '^') {
        out += '^';
        i++;
      }
    } else if (ch === '.') {
      out += `[${NOT_LINE_END}]`;
    } else {
      out += ch;
    }
  }
  return { ok: true, re2: RE2JS.translateRegExp(out) };
}

const compiled = new Map<string, RE2JS | string>();

/** RE2's program for an ECMA-262 pattern, or why it has none (one line). Compiled once per pattern text. */
function compileLinear(source: string): RE2JS | string {
  const known = compiled.get(source);
  if (known !== undefined) return known;
  let result: RE2JS | string;
  try {
    // JavaScript's parser only checks the syntax here: compiling is linear, only matching backtracks.
    new RegExp(source, 'u');
    const translated = toRe2(source);
    result = translated.ok
      ? RE2JS.compile(translated.re2)
      : `it uses ${translated.construct}, which RE2 does not evaluate; express it without lookaround and backreferences`;
  } catch (error) {
    result =
      error instanceof SyntaxError
        ? `it is not an ECMA-262 regular expression (JSON Schema's dialect, Unicode mode): ${messageOf(error)}`
        : `RE2 cannot compile it (${messageOf(error)}); see RE2's syntax, which most patterns already follow`;
  }
  compiled.set(source, result);
  return result;
}

/** Why `source` cannot be a contract pattern (one line), or undefined when it can. */
export function patternProblem(source: string): string | undefined {
  const result = compileLinear(source);
  return typeof result === 'string' ? result : undefined;
}

/** A pattern compiled for linear-time matching; throws (with `patternProblem`'s reason) when it cannot be. */
export function linearPattern(source: string): LinearPattern {
  const result = compileLinear(source);
  if (typeof result === 'string') throw new Error(`the pattern ${JSON.stringify(source)} cannot be used: ${result}`);
  return { test: (text) => result.test(text), toString: () => `/${source}/` };
}

/**
 * ajv's `code.regExp`: every `pattern`, `patternProperties` key and `propertyNames` pattern of a compiled
 * schema goes through it. ajv keys its cache by `toString()`, so each pattern keeps its own text. The
 * `code` is used only for standalone code, which this project does not generate.
 */
export const linearRegExp: NonNullable<CodeOptions['regExp']> = Object.assign((source: string) => linearPattern(source), {
  code: 'require("goods-contract-harness/contract/patterns").linearPattern',
});
