import { type ExplorerApi, ProblemError, refreshDelayMs } from './model/api';
import { clockTimeIn } from './model/clock';

export interface LivePanel {
  /** Shows a location's occupancy now and keeps it current; clock times on the location's clock (`zone`), named. */
  show(locationId: string, zone: string): void;
}

/** After a failed call, try again this much later. */
const RETRY_MS = 60_000;

/**
 * Live occupancy per sensor group of one location. The service refreshes occupancy every 5 minutes and
 * says in `Cache-Control: max-age` how long an answer stays current, so the panel asks again exactly
 * then (not on a timer of its own that would drift from the service's); it pauses while the tab is hidden.
 */
export function livePanel(
  api: ExplorerApi,
  el: { body: HTMLElement; status: HTMLElement },
  now = () => Date.now(),
): LivePanel {
  let current: string | undefined;
  let zone = 'UTC';
  const clock = (t: number) => clockTimeIn(t, zone);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;

  const schedule = (ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => void load(), ms);
  };

  async function load(): Promise<void> {
    if (!current) return;
    if (document.hidden) return; // picked up again on visibilitychange
    const mine = ++generation;
    try {
      const { body, maxAgeSeconds } = await api.liveOccupancy(current);
      if (mine !== generation) return;
      const groups = body.insights.occupancy ?? [];
      if (groups.length === 0) {
        const empty = document.createElement('p');
        empty.textContent = 'No sensor group is open with current data (closed, or no data yet).';
        el.body.replaceChildren(empty);
      } else {
        const list = document.createElement('ul');
        list.className = 'occupancy';
        for (const group of groups) {
          const item = document.createElement('li');
          const count = document.createElement('span');
          count.className = 'count';
          count.textContent = String(group.occupancy);
          const name = document.createElement('span');
          name.className = 'name';
          name.textContent = group.sensorGroup.name;
          item.append(name, count);
          list.append(item);
        }
        el.body.replaceChildren(list);
      }
      const delay = refreshDelayMs(maxAgeSeconds);
      el.status.textContent = `As of ${clock(now())}; next update at ${clock(now() + delay)}.`;
      schedule(delay);
    } catch (e) {
      if (mine !== generation) return;
      const message = e instanceof ProblemError ? e.problem.detail : 'The service could not be reached.';
      el.body.replaceChildren();
      el.status.textContent = `${message} Trying again at ${clock(now() + RETRY_MS)}.`;
      schedule(RETRY_MS);
    }
  }

  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) void load();
  });

  return {
    show(locationId, timeZone) {
      current = locationId;
      zone = timeZone;
      void load();
    },
  };
}
