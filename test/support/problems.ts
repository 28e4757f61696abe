/** The mock's problems as tests name them. */
import { ProblemError } from '../../mock/problems.js';

/**
 * The short name of the problem `promise` is refused with (`session-full` for
 * `https://goods.example/problems/session-full`), or `none` when it is fulfilled (or a value given at
 * once, as a store's create may answer); any other error is thrown on.
 */
export async function refusal(promise: Promise<unknown> | string): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProblemError) return error.kind.type.replace('https://goods.example/problems/', '');
    throw error;
  }
  return 'none';
}
