import type { RebuildOutcome, Store } from '#shared/stores/store';

/**
 * How often the local server rebuilds the rollups' dirty grains (docs/rollups.md): often enough that
 * `--simulate`'s rounds (every few seconds) are in the rollups by the next round, and a report reads
 * raw only the little written since; a rebuild with nothing dirty is two tiny queries.
 */
export const ROLLUP_REBUILD_MS = 2_000;

/**
 * The time after a rebuild before the next, as a multiple of the rebuild's own time (its wait for
 * the write turn included), when that is longer than the interval: at most about a fifth of the
 * time goes to rebuilds. A rebuild regroups whole days (docs/rollups.md), so while documents stream
 * in, rebuilding at a fixed interval regrouped the same days again and again and took the write
 * turn from the writes (bench/README.md, "Ingest"); spaced by its cost, one rebuild covers more
 * writes. A server that writes little still rebuilds every interval.
 */
export const REBUILD_SPACING = 4;
/** No rebuild waits longer than this after the last (a slow one, e.g. a data folder's first). */
export const MAX_REBUILD_WAIT_MS = 60_000;

export interface RollupRebuilds {
  /** Stops the timer and waits for a rebuild under way (it holds the write turn). */
  stop(): Promise<void>;
}

/**
 * Rebuilds now (a data folder of an earlier version has every grain dirty: reports read raw until
 * then, exactly), then again `everyMs` after each rebuild ends, or longer after a slow one
 * (REBUILD_SPACING), one at a time; a failure is logged, and the next one tries again (the grains
 * stay dirty, so reports stay exact meanwhile). `onRebuilt` runs after a rebuild that rebuilt
 * grains (the report cache forgets what read raw: it may now read rollups).
 */
export function startRollupRebuilds(
  store: Pick<Store, 'rebuildRollups'>,
  everyMs: number = ROLLUP_REBUILD_MS,
  log: (line: string) => void = console.error,
  onRebuilt: () => void = () => undefined,
): RollupRebuilds {
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = () => {
    const started = Date.now();
    running = store
      .rebuildRollups()
      .then((outcome) => grainsRebuilt(outcome) > 0 && onRebuilt())
      .catch((e: unknown) => log(`rollup rebuild failed: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => {
        if (!stopped)
          timer = setTimeout(
            tick,
            Math.min(MAX_REBUILD_WAIT_MS, Math.max(everyMs, REBUILD_SPACING * (Date.now() - started))),
          );
      });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

const grainsRebuilt = (outcome: RebuildOutcome): number => Object.values(outcome.rebuilt).reduce((a, b) => a + b, 0);
