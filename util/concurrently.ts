/**
 * Runs `work` on every item, at most `limit` at a time, each item once and started in order (a worker
 * that finishes takes the next). Resolves when all are done; rejects with the first failure, as
 * Promise.all does.
 */
export async function eachConcurrently<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  const entries = [...items.entries()];
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let entry = entries[next++]; entry !== undefined; entry = entries[next++]) await work(entry[1], entry[0]);
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, () => worker()));
}
