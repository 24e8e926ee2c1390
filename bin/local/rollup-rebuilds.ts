import type { DuckDBInstance } from '@duckdb/node-api';
import { rebuildRollups } from '#shared/report/engines/duckdb/rollup/maintain';

/**
 * How often the local server rebuilds the rollups' dirty grains (docs/rollups.md): often enough that
 * `--simulate`'s rounds (every few seconds) are in the rollups by the next round, and a report reads
 * raw only the little written since; a rebuild with nothing dirty is two tiny queries.
 */
export const ROLLUP_REBUILD_MS = 2_000;

export interface RollupRebuilds {
  /** Stops the timer and waits for a rebuild under way (it holds the write turn). */
  stop(): Promise<void>;
}

/**
 * Rebuilds now (a data folder of an earlier version has every grain dirty: reports read raw until
 * then, exactly), then every `everyMs`, one at a time; a failure is logged, and the next tick tries
 * again (the grains stay dirty, so reports stay exact meanwhile). `onRebuilt` runs after a rebuild
 * that rebuilt grains (the report cache forgets what read raw: it may now read rollups).
 */
export function startRollupRebuilds(
  db: DuckDBInstance,
  everyMs: number = ROLLUP_REBUILD_MS,
  log: (line: string) => void = console.error,
  onRebuilt: () => void = () => undefined,
): RollupRebuilds {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const tick = () => {
    if (busy) return;
    busy = true;
    running = rebuildRollups(db)
      .then((rebuilt) => rebuilt > 0 && onRebuilt())
      .catch((e: unknown) => log(`rollup rebuild failed: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => (busy = false));
  };
  tick();
  const timer = setInterval(tick, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
