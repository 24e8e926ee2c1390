import { addDays, type LocalDate } from '#shared/time/local-time';
import { formatDay, parseDay } from './time';

/**
 * Time presets: ranges of whole days counted from today in the report's time zone (the location's by
 * default), so "today" in Tokyo is Tokyo's today. Weeks start on Monday, as the service's `1w` buckets.
 */
export const PRESETS = [
  { id: 'today', label: 'Today', interval: '1h' },
  { id: 'yesterday', label: 'Yesterday', interval: '1h' },
  { id: 'last7', label: 'Last 7 days', interval: '1h' },
  { id: 'thisWeek', label: 'This week', interval: '1h' },
  { id: 'lastWeek', label: 'Last week', interval: '1h' },
  { id: 'last30', label: 'Last 30 days', interval: '1d' },
  { id: 'thisMonth', label: 'This month', interval: '1d' },
  { id: 'lastMonth', label: 'Last month', interval: '1d' },
] as const;

export type PresetId = (typeof PRESETS)[number]['id'];

export const isPreset = (id: string): id is PresetId => PRESETS.some((p) => p.id === id);

/** Monday = 0 … Sunday = 6 of a calendar date. */
const weekdayIndex = (d: LocalDate): number => (new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay() + 6) % 7;

/** The first and last day (both included, `YYYY-MM-DD`) of a preset, from today's date in the zone. */
export function presetRange(id: PresetId, today: string): { firstDay: string; lastDay: string } {
  const t = parseDay(today);
  if (!t) throw new RangeError(`not a day: ${today}`);
  const day = (d: LocalDate) => formatDay(d);
  const monday = addDays(t, -weekdayIndex(t));
  const firstOfMonth = { ...t, day: 1 };
  switch (id) {
    case 'today':
      return { firstDay: today, lastDay: today };
    case 'yesterday':
      return { firstDay: day(addDays(t, -1)), lastDay: day(addDays(t, -1)) };
    case 'last7':
      return { firstDay: day(addDays(t, -6)), lastDay: today };
    case 'last30':
      return { firstDay: day(addDays(t, -29)), lastDay: today };
    case 'thisWeek':
      return { firstDay: day(monday), lastDay: today };
    case 'lastWeek':
      return { firstDay: day(addDays(monday, -7)), lastDay: day(addDays(monday, -1)) };
    case 'thisMonth':
      return { firstDay: day(firstOfMonth), lastDay: today };
    case 'lastMonth': {
      const last = addDays(firstOfMonth, -1);
      return { firstDay: day({ ...last, day: 1 }), lastDay: day(last) };
    }
  }
}
