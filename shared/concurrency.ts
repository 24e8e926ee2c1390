import { AppError } from './errors';

/**
 * `task` over every item, at most `concurrency` at once, results in item order. After the first
 * failure no new task starts; once the running ones have settled, the first AppError is thrown
 * (else the first error), so a failure never leaves work running behind the caller's back.
 * Used by split reports (slices, stored results) and the occupancy refresh (locations).
 */
export async function runPool<T, R>(items: readonly T[], concurrency: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  const errors: unknown[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (errors.length === 0 && next < items.length) {
      const index = next++;
      try {
        results[index] = await task(items[index] as T, index);
      } catch (e) {
        errors.push(e);
      }
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(concurrency) || 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  if (errors.length > 0) throw errors.find((e) => e instanceof AppError) ?? errors[0];
  return results;
}
