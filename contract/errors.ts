/**
 * The message of anything thrown: an `Error`'s message, or the value as text. Shared by every folder
 * (they may all import `contract/`), instead of `(error as Error).message` casts.
 */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
