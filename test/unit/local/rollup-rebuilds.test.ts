import { startRollupRebuilds } from '../../../bin/local/rollup-rebuilds';

/**
 * The local server's rollup rebuilds (bin/local/rollup-rebuilds.ts) run one at a time, each
 * starting the interval after the last ended, or four times the last one's duration after it when
 * that is longer (so that under a stream of writes rebuilds take about a fifth of the time at most).
 */
/** A rebuild's outcome with `n` grains rebuilt. */
const grains = (n: number) => ({
  rebuilt: { movementEvents: n, parkingLotStats: 0, parkingEvents: 0 },
  backfilled: { movementEvents: 0, parkingLotStats: 0, parkingEvents: 0 },
  more: false,
});

describe('startRollupRebuilds', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  test('waits the interval after a quick rebuild and four times its duration after a slow one', async () => {
    // Prepare: rebuilds taking 100 ms, 1,000 ms, then 100 ms again
    const starts: number[] = [];
    const durations = [100, 1_000, 100, 100];
    const rebuild = async () => {
      starts.push(Date.now());
      await new Promise((resolve) => setTimeout(resolve, durations[starts.length - 1]));
      return grains(1);
    };
    // Act
    const rebuilds = startRollupRebuilds(
      { rebuildRollups: rebuild },
      2_000,
      () => undefined,
      () => undefined,
    );
    await jest.advanceTimersByTimeAsync(9_000);
    const stopping = rebuilds.stop();
    await jest.runOnlyPendingTimersAsync();
    await stopping;
    // Assess: 0 → ends 100, next at 100 + 2,000; 2,100 → ends 3,100, next at 3,100 + 4,000; 7,100 → ends 7,200, next at
    // 9,200 (stopped before)
    expect(starts).toEqual([0, 2_100, 7_100]);
  });

  test('logs a failed rebuild, tries again later, and tells when grains were rebuilt', async () => {
    const lines: string[] = [];
    let calls = 0;
    let rebuilt = 0;
    const rebuild = async () => {
      calls++;
      if (calls === 1) throw new Error('busy');
      return grains(3);
    };
    const rebuilds = startRollupRebuilds(
      { rebuildRollups: rebuild },
      2_000,
      (l) => lines.push(l),
      () => rebuilt++,
    );
    await jest.advanceTimersByTimeAsync(2_500);
    await rebuilds.stop();
    expect(lines).toEqual(['rollup rebuild failed: busy']);
    expect(calls).toBe(2);
    expect(rebuilt).toBe(1);
  });
});
