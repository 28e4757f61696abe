/**
 * The message of anything thrown: an `Error`'s message, or the value as text. Shared by every folder
 * (they may all import `contract/`), instead of `(error as Error).message` casts.
 */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The `code` of a Node error (`EADDRINUSE`, `ENOENT`...), or undefined: instead of `NodeJS.ErrnoException` casts. */
export function codeOf(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}
