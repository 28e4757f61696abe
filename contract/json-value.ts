/**
 * Plain JSON values, as a contract is read (no class instances), and the two helpers every reader of a
 * contract needs: is this an object, and what does a local `$ref` ("#/components/...") point at.
 */
import { unescapeToken } from '../util/json-pointer.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Resolves a local `$ref` ("#/components/...") in the document. */
export function resolvePointer(doc: JsonValue, pointer: string): JsonValue | undefined {
  if (!pointer.startsWith('#')) return undefined;
  const parts = pointer
    .slice(1)
    .split('/')
    .slice(1)
    .map((part) => unescapeToken(decodeURIComponent(part)));
  let node: JsonValue | undefined = doc;
  for (const part of parts) {
    if (Array.isArray(node)) node = node[Number(part)];
    else if (isObject(node)) node = node[part];
    else return undefined;
  }
  return node;
}

/** RFC 7396: `patch` applied to `target` (null removes a member; an object merges member by member; anything else replaces). */
export function mergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete out[name];
    else out[name] = mergePatch(out[name], value);
  }
  return out;
}
