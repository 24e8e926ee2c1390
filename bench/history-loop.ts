import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { startLocalService } from '../bin/dev/local-service';
import { machine, median } from './stats';

/**
 * `npm run bench -- history-loop` (issue 30, M3): does a month of history, its counts cached, keep
 * other requests of `npm start` waiting? GET /locations is timed alone, then while ten 31-day,
 * 15-minute histories of berlin-mall (asked once before, so their counts are in the report cache)
 * are answered at once; the ratio of the medians comes from one run. The service is a child process:
 * this process's own event loop delay (monitorEventLoopDelay) is printed to show the client did not
 * wait on itself.
 */
const ROUNDS = 5;
const ALONE = 20;

export async function benchHistoryLoop(): Promise<void> {
  console.log(`machine: ${await machine()}`);
  console.log(
    `load before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const service = await startLocalService({ LOG_REQUESTS: '' });
  const own = monitorEventLoopDelay({ resolution: 5 });
  try {
    const auth = { authorization: `Bearer ${service.token}` };
    const day = 86_400_000;
    const today = Math.floor(Date.now() / day) * day;
    const history = `${service.url}/locations/berlin-mall/insights/history?filter=occupancy&from=${new Date(today - 31 * day).toISOString()}&to=${new Date(today).toISOString()}&interval=15m`;
    const locations = async (): Promise<number> => {
      const started = performance.now();
      const answer = await fetch(`${service.url}/locations`, { headers: auth });
      await answer.arrayBuffer();
      if (answer.status !== 200) throw new Error(`GET /locations answered ${answer.status}`);
      return performance.now() - started;
    };
    const asked = await fetch(history, { headers: auth });
    const buckets = (
      (await asked.json()) as { insights: { occupancy: { buckets: unknown[] }[] } }
    ).insights.occupancy.map((g) => g.buckets.length);
    console.log(`history: ${buckets.length} groups × ${buckets[0]} buckets`);
    for (let i = 0; i < 5; i++) await locations();
    own.enable();
    const alone: number[] = [];
    const beside: number[] = [];
    const histories: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < ALONE; i++) alone.push(await locations());
      const started = performance.now();
      const ten = Promise.all(
        Array.from({ length: 10 }, () => fetch(history, { headers: auth }).then((r) => r.arrayBuffer())),
      ).then(() => histories.push(performance.now() - started));
      // GET /locations one after another while the ten are answered (the first is asked with them).
      let done = false;
      void ten.then(() => (done = true));
      do beside.push(await locations());
      while (!done);
      await ten;
    }
    own.disable();
    const [a, b] = [median(alone), median(beside)];
    console.log(
      `GET /locations alone: median ${a.toFixed(1)} ms, max ${Math.max(...alone).toFixed(1)} ms (${alone.length})`,
    );
    console.log(
      `GET /locations beside ten cached histories: median ${b.toFixed(1)} ms, max ${Math.max(...beside).toFixed(1)} ms (${beside.length}); ratio of medians ${(b / a).toFixed(1)}`,
    );
    console.log(`ten histories at once: median ${median(histories).toFixed(0)} ms`);
    console.log(`this process's event loop delay: max ${(own.max / 1e6).toFixed(1)} ms`);
  } finally {
    await service.stop();
    console.log(
      `load after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  }
}
