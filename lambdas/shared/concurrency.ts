/**
 * Runs `work` on every item with at most `limit` calls in flight, and returns the results in the
 * order of the items. A rejection rejects the whole (after the calls in flight settle is not awaited:
 * callers catch per item when one failure must not stop the rest).
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
