/**
 * What every reader of a contract relies on, checked once when it is read: a finite document, `$ref`
 * chains that reach a schema, and patterns that can be matched in linear time. Each problem is one
 * line naming where it stands (a JSON Pointer) and how to fix it; the callers add the file.
 *
 * A schema may refer to itself below `properties`, `items` and the other keywords that apply to a part
 * of the value (a tree whose children are nodes): each step descends into the value, so validation and
 * generation end. A schema that reaches itself without descending (`$ref` to itself, a chain of `$ref`s,
 * `allOf`/`anyOf`/`oneOf`/`not`/`if`/`then`/`else` back to an ancestor) never ends: ajv overflows its
 * stack on it, at start-up or on the first request. Those cycles are refused.
 */
import { isObject, resolvePointer, type JsonValue } from './json-value.js';
import { patternProblem } from './patterns.js';
import { childPointer } from '../util/json-pointer.js';

/** A contract that cannot be used as it is: `message` says what and where, and how to fix it. */
export class ContractProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContractProblem';
  }
}

/** Members whose value is data (an example, a default, an extension), never a schema or a pattern. */
const DATA_KEYWORDS = new Set(['example', 'examples', 'enum', 'const', 'default']);
/** Members whose value maps names to schemas: there a member named `default` or `pattern` is a schema. */
const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'schemas',
  'responses',
  'content',
]);
/** Keywords that apply their subschemas to the same value: a cycle through them never descends. */
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
const IN_PLACE_ONE = ['not', 'if', 'then', 'else'] as const;

/** Each object of the document once, with its pointer; fails on an object that contains itself. */
function walkDocument(
  document: JsonValue,
  name: string,
  visit: (node: JsonValue, pointer: string, parentKey: string | undefined) => void,
): void {
  const ancestors = new Set<object>();
  const walk = (node: JsonValue, pointer: string, parentKey: string | undefined, inNameMap: boolean): void => {
    if (typeof node !== 'object' || node === null) return;
    if (ancestors.has(node))
      throw new ContractProblem(
        `${name} contains itself at #${pointer} (a YAML alias "*x" inside the node its anchor "&x" marks); write that part out, or refer to it with $ref`,
      );
    ancestors.add(node);
    visit(node, pointer, parentKey);
    if (Array.isArray(node)) node.forEach((item, index) => walk(item, childPointer(pointer, index), parentKey, false));
    else
      for (const [key, value] of Object.entries(node)) {
        if (!inNameMap && (DATA_KEYWORDS.has(key) || key.startsWith('x-'))) continue;
        walk(value, childPointer(pointer, key), key, !inNameMap && NAME_MAPS.has(key));
      }
    ancestors.delete(node);
  };
  walk(document, '', undefined, false);
}

/** The subschemas a schema applies to the same value, and the path to each ("$ref", "allOf/0"). */
function inPlace(document: JsonValue, node: JsonValue, pointer: string): { via: string; node: JsonValue; pointer: string }[] {
  if (!isObject(node)) return [];
  const out: { via: string; node: JsonValue; pointer: string }[] = [];
  const ref = node['$ref'];
  if (typeof ref === 'string' && ref.startsWith('#')) {
    const target = resolvePointer(document, ref);
    if (target !== undefined) out.push({ via: '$ref', node: target, pointer: ref });
  }
  for (const keyword of IN_PLACE_LISTS) {
    const parts = node[keyword];
    if (Array.isArray(parts))
      parts.forEach((part, index) => out.push({ via: `${keyword}/${index}`, node: part, pointer: `${pointer}/${keyword}/${index}` }));
  }
  for (const keyword of IN_PLACE_ONE)
    if (isObject(node[keyword])) out.push({ via: keyword, node: node[keyword], pointer: `${pointer}/${keyword}` });
  return out;
}

/** A chain of references that comes back to where it started without descending into the value, as pointers. */
function refCycle(document: JsonValue, name: string): string[] | undefined {
  const done = new Set<object>();
  const onPath = new Map<object, number>();
  const path: string[] = [];
  const visit = (node: JsonValue, pointer: string): string[] | undefined => {
    if (typeof node !== 'object' || node === null || done.has(node)) return undefined;
    const start = onPath.get(node);
    if (start !== undefined) return [...path.slice(start), pointer];
    onPath.set(node, path.length);
    path.push(pointer);
    for (const next of inPlace(document, node, pointer)) {
      const found = visit(next.node, next.pointer);
      if (found) return found;
    }
    path.pop();
    onPath.delete(node);
    done.add(node);
    return undefined;
  };
  let found: string[] | undefined;
  walkDocument(document, name, (node, pointer) => {
    found ??= visit(node, `#${pointer}`);
  });
  return found;
}

/** Every pattern of the document (`pattern` values, `patternProperties` names) that cannot be matched in linear time. */
function patternProblems(document: JsonValue, name: string): string[] {
  const problems: string[] = [];
  walkDocument(document, name, (node, pointer, parentKey) => {
    if (!isObject(node)) return;
    const check = (source: string, where: string): void => {
      const problem = patternProblem(source);
      if (problem !== undefined) problems.push(`the pattern ${JSON.stringify(source)} at #${where}: ${problem}`);
    };
    if (typeof node['pattern'] === 'string' && parentKey !== undefined && !NAME_MAPS.has(parentKey))
      check(node['pattern'], childPointer(pointer, 'pattern'));
    if (isObject(node['patternProperties']))
      for (const name of Object.keys(node['patternProperties']))
        check(name, childPointer(childPointer(pointer, 'patternProperties'), name));
  });
  return problems;
}

const sound = new WeakSet<object>();

/**
 * Throws a ContractProblem (one line, starting with `name`: "the contract openapi.yaml") when the
 * document contains itself, has a `$ref` cycle that never descends into the value, or has a pattern
 * without a linear-time evaluation. A document found sound is remembered, so reading it and compiling
 * it check it once.
 */
export function assertSound(document: JsonValue, name = 'the contract'): void {
  if (typeof document !== 'object' || document === null || sound.has(document)) return;
  const cycle = refCycle(document, name);
  if (cycle)
    throw new ContractProblem(
      `${name} has a $ref cycle that never reaches a schema: ${cycle.join(' → ')}; a schema may refer to itself only below properties or items (a tree whose children are nodes), so break the cycle there`,
    );
  const problems = patternProblems(document, name);
  if (problems.length > 0)
    throw new ContractProblem(
      `${name} has ${problems.length === 1 ? 'a pattern' : `${problems.length} patterns`} that cannot be matched in linear time (RE2, so that no value can freeze a validator): ${problems.join('; ')}`,
    );
  sound.add(document);
}
