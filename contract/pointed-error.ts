/**
 * A contract that cannot be used as written, at one place: `pointer` is the JSON Pointer of that place,
 * the message says what is wrong and what to write, ending with `(at <pointer>)`. Its kinds say which:
 * `ResourceError` (a fact to declare, `resources.ts`), `ExtensionError` (a malformed `x-` value, `extensions.ts`).
 */
export class PointedContractError extends Error {
  constructor(
    readonly pointer: string,
    reason: string,
  ) {
    super(`${reason} (at ${pointer})`);
    this.name = new.target.name;
  }
}
