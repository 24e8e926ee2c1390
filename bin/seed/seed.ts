import { applyImport, validateImportFile } from '#shared/locations/import';
import type { LocationStore } from '#shared/locations/store';
import type { Collection } from '#shared/documents/fields';
import { seedLocations, seedMovementEvents, seedParking, type SeedOptions } from './generate';
import type { DocumentFailure, DocumentTarget } from './targets';

export interface SeedSummary {
  readonly locations: number;
  /** Documents written by this run, per collection. */
  readonly documents: Readonly<Record<Collection, number>>;
  /** Documents that were stored already (an earlier seed of the same hours), per collection. */
  readonly duplicates: Readonly<Record<Collection, number>>;
  readonly failures: readonly DocumentFailure[];
}

// One DuckDB transaction per batch: larger batches spend less on commits (measured in bench/duckdb.ts).
const BATCH = 100_000;

/**
 * Writes the documents to the target (none: locations only), in batches, then the locations (with
 * their sensor groups) to the store. `progress(done, total)` is called after each batch; total is an
 * estimate until the last call, where it is the number written (the generator makes fewer events
 * than the estimate on most days, which left the bar at 98%).
 */
export async function seed(
  target: DocumentTarget | undefined,
  store: Parameters<typeof applyImport>[0] & Pick<LocationStore, 'listLocations'>,
  options: SeedOptions,
  progress: (done: number, total: number) => void = () => undefined,
): Promise<SeedSummary> {
  // Created as of the first seeded day, so the groups' capacities are in force over all the seeded
  // history (utilization uses the capacity of each bucket's time).
  const since = new Date(options.now - options.days * 86_400_000);
  const locations = validateImportFile(seedLocations(options));
  // The locations last: they are what says "seeded" (npm start seeds a store without them), so a seed
  // stopped midway (a failed write, Ctrl-C) is seeded again whole on the next start, its documents
  // written so far counted as duplicates, instead of being left half done without a word.
  const importLocations = async () => (await applyImport(store, locations, { now: since, actor: null })).length;
  const counts: Record<Collection, number> = { movementEvents: 0, parkingLotStats: 0, parkingEvents: 0 };
  const duplicates: Record<Collection, number> = { movementEvents: 0, parkingLotStats: 0, parkingEvents: 0 };
  if (!target) return { locations: await importLocations(), documents: counts, duplicates, failures: [] };
  const { parkingEvents, parkingLotStats } = seedParking(options);
  const estimate =
    options.days * options.locations * (options.eventsPerDay ?? 1500) + parkingEvents.length + parkingLotStats.length;
  const failures: DocumentFailure[] = [];
  let done = 0;
  const flush = async (collection: Collection, batch: readonly unknown[]) => {
    const result = await target.write(collection, batch, done + 1);
    counts[collection] += result.written;
    duplicates[collection] += result.duplicates;
    failures.push(...result.failures);
    done += batch.length;
    progress(done, Math.max(estimate, done));
  };
  let batch: unknown[] = [];
  for (const event of seedMovementEvents(options)) {
    batch.push(event);
    if (batch.length === BATCH) {
      await flush('movementEvents', batch);
      batch = [];
    }
  }
  if (batch.length > 0) await flush('movementEvents', batch);
  await flush('parkingEvents', parkingEvents);
  await flush('parkingLotStats', parkingLotStats);
  progress(done, done);
  return { locations: await importLocations(), documents: counts, duplicates, failures };
}
