/**
 * The two conformance levels, derived from the one contract.
 *
 * The contract is written at the `strict` level (the specification plus the project's profile) and
 * marks every profile rule where it stands:
 * - `x-profile: [keyword, ...]` on a schema object: those keywords are profile rules;
 * - `x-profile: true` on a response: the response (its status code and body) is a profile decision;
 * - `x-spec-status: 2XX` on a success response: the specification only says "a 2xx answer".
 * `deriveLevel(doc, 'spec')` removes every profile rule, so no rule is ever written twice.
 */
import { deref, isObject, type JsonValue, type OpenApiDocument } from './document.js';
import { isProfileResponse, profileKeywords, specStatusOf } from './extensions.js';
import { childPointer } from '../util/json-pointer.js';

export const LEVELS = ['spec', 'strict'] as const;
export type Level = (typeof LEVELS)[number];

export function isLevel(value: string): value is Level {
  return (LEVELS as readonly string[]).includes(value);
}

/** Removes the keywords that `x-profile` lists on every object below `node`, and the markers. */
function stripProfileKeywords(node: JsonValue): void {
  if (Array.isArray(node)) {
    for (const item of node) stripProfileKeywords(item);
    return;
  }
  if (!isObject(node)) return;
  if (Array.isArray(node['x-profile'])) {
    for (const keyword of profileKeywords(node)) delete node[keyword];
    delete node['x-profile'];
  }
  for (const value of Object.values(node)) stripProfileKeywords(value);
}

/** Rewrites the responses of every operation for the `spec` level. */
function specResponses(doc: OpenApiDocument): void {
  const paths = isObject(doc['paths']) ? doc['paths'] : {};
  for (const pathItem of Object.values(paths)) {
    if (!isObject(pathItem)) continue;
    for (const operation of Object.values(pathItem)) {
      if (!isObject(operation) || !isObject(operation['responses'])) continue;
      const rewritten: Record<string, JsonValue> = {};
      for (const [status, value] of Object.entries(operation['responses'])) {
        const response = deref(doc, value);
        if (response !== undefined && isProfileResponse(response)) continue;
        const specStatus = isObject(value) ? specStatusOf(value) : undefined;
        if (specStatus !== undefined && isObject(value)) {
          const copy = { ...value };
          delete copy['x-spec-status'];
          rewritten[specStatus] = copy;
        } else {
          rewritten[status] = value;
        }
      }
      operation['responses'] = rewritten;
    }
  }
  const components = doc['components'];
  if (isObject(components) && isObject(components['responses'])) {
    for (const [name, response] of Object.entries(components['responses'])) {
      if (isObject(response) && isProfileResponse(response)) delete components['responses'][name];
    }
  }
}

/** The contract as seen at one level. Never changes its argument. */
export function deriveLevel(doc: OpenApiDocument, level: Level): OpenApiDocument {
  const copy = structuredClone(doc);
  if (level === 'strict') return copy;
  specResponses(copy);
  stripProfileKeywords(copy);
  return copy;
}

/** One profile rule found in the contract: where it stands and what it says. */
export interface ProfileRule {
  /** JSON Pointer of the object carrying the marker. */
  pointer: string;
  /** The profile keywords there (or `response` for a whole response). */
  keywords: string[];
}

/** Lists every profile marker in the contract, for documentation and tests. */
export function listProfileRules(doc: OpenApiDocument): ProfileRule[] {
  const rules: ProfileRule[] = [];
  const walk = (node: JsonValue, pointer: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => walk(item, childPointer(pointer, index)));
      return;
    }
    if (!isObject(node)) return;
    if (Array.isArray(node['x-profile'])) rules.push({ pointer, keywords: [...profileKeywords(node)] });
    if (isProfileResponse(node)) rules.push({ pointer, keywords: ['response'] });
    if (specStatusOf(node) !== undefined) rules.push({ pointer, keywords: ['status'] });
    for (const [key, value] of Object.entries(node)) walk(value, childPointer(pointer, key));
  };
  walk(doc, '');
  return rules;
}
