import type { SitesOverview } from '#shared/occupancy/overview';
import { change, type Change } from './dashboard';

/**
 * Every site at a glance: one row per location the caller may see, from one answer of
 * `GET /insights/overview` (and the names of `GET /locations`), sortable by any column.
 */
export interface SiteRow {
  readonly id: string;
  readonly name: string;
  readonly timezone: string;
  /** People now; undefined when no area is open with current data. */
  readonly people: number | undefined;
  /** The share of capacity taken now, where the location's open areas have a capacity. */
  readonly utilization: number | undefined;
  readonly capacity: number | undefined;
  /** Some open areas have no capacity: the share is of the others only. */
  readonly partialCapacity: boolean;
  readonly today: number;
  readonly lastWeek: number;
  readonly change: Change;
  /** Movement events per local hour: today so far, and the same day a week before. */
  readonly hourly: readonly number[];
  readonly hourlyLastWeek: readonly number[];
  /**
   * Cameras gone silent (the sensor health of the alerts work); undefined until the service says,
   * and the column is shown only when some row has a value.
   */
  readonly silentSensors?: number;
}

/** An overview location as answered (`silentSensors` once the service says). */
type Answered = SitesOverview['locations'][number] & {
  readonly name?: string;
  readonly silentSensors?: number;
};

export function siteRows(overview: SitesOverview, names: ReadonlyMap<string, string>): SiteRow[] {
  return (overview.locations as readonly Answered[]).map((l) => ({
    id: l.id,
    name: names.get(l.id) || l.name || l.id,
    timezone: l.timezone,
    people: l.occupancy.groups > 0 ? l.occupancy.people : undefined,
    utilization: l.occupancy.groups > 0 ? l.occupancy.utilization : undefined,
    capacity: l.occupancy.capacity,
    partialCapacity:
      l.occupancy.capacity !== undefined && (l.occupancy.sensorGroups ?? []).some((g) => g.capacity === undefined),
    today: l.today.count,
    lastWeek: l.lastWeek.count,
    change: change(l.today.count, l.lastWeek.count),
    hourly: l.today.hourly,
    hourlyLastWeek: l.lastWeek.hourly,
    ...(l.silentSensors === undefined ? {} : { silentSensors: l.silentSensors }),
  }));
}

export type SortKey = 'name' | 'people' | 'utilization' | 'today' | 'change' | 'silentSensors';
export type SortOrder = 'ascending' | 'descending';

/** The value a column sorts by; a row without one (closed, no capacity, nothing last week) sorts last either way. */
const keyOf = (row: SiteRow, key: SortKey): string | number | undefined => {
  switch (key) {
    case 'name':
      return row.name;
    case 'change':
      return row.change.share;
    default:
      return row[key];
  }
};

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/**
 * The rows in the order of a column (names by the reader's collation, numbers by value), ties by name; without a value
 * last.
 */
export function sortRows(rows: readonly SiteRow[], key: SortKey, order: SortOrder): SiteRow[] {
  const sign = order === 'ascending' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const [x, y] = [keyOf(a, key), keyOf(b, key)];
    if (x === undefined || y === undefined)
      return x === y ? collator.compare(a.name, b.name) : x === undefined ? 1 : -1;
    const c = typeof x === 'string' ? collator.compare(x, y as string) : x - (y as number);
    return c !== 0 ? sign * c : collator.compare(a.name, b.name);
  });
}

/** What a column starts with when first chosen: names A to Z, numbers largest first. */
export const firstOrder = (key: SortKey): SortOrder => (key === 'name' ? 'ascending' : 'descending');
