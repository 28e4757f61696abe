/**
 * Values frozen whole: a value and every object in it frozen, and known to be so. A pure function of
 * such a value (a schema's verdict on a parsed answer) may remember its result for it, because nothing
 * can change it afterwards. `Object.isFrozen` says so of the outer object only.
 */

const frozenWhole = new WeakSet<object>();

/** Freezes `value` and every object in it, and remembers each as frozen whole; cheap for one already frozen whole. */
export function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || frozenWhole.has(value)) return;
  Object.freeze(value);
  for (const member of Object.values(value)) deepFreeze(member);
  frozenWhole.add(value);
}

/** True when `value` is an object that `deepFreeze` froze whole (so neither it nor anything in it can change). */
export function isFrozenWhole(value: unknown): value is object {
  return typeof value === 'object' && value !== null && frozenWhole.has(value);
}
