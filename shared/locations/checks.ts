import type { FieldError } from '../errors';
import { WEEKDAYS, type OpeningHours } from './model';
import type { LocationInput } from './schema';
import { minutesOf } from '../time/local-time';

const WEEK_MINUTES = 7 * 1440;

/**
 * Checks across values that the zod schemas cannot express, for a whole import file: each location
 * as {@link checkLocation} checks it, unique location ids per organization, and an organization on
 * every location (a request takes the caller's). All errors, not the first. A hole (undefined)
 * stands for a location the schema refused: the others keep their index in the file, so their paths
 * are the file's.
 */
export function checkImportFile(locations: readonly (LocationInput | undefined)[]): FieldError[] {
  const errors: FieldError[] = [];
  const seenLocations = new Map<string, number>();
  locations.forEach((location, i) => {
    if (location === undefined) return;
    const at = `/locations/${i}`;
    if (location.organizationId === undefined)
      errors.push({
        path: `${at}/organizationId`,
        message: 'is required in a file (the UUID of the organization the location belongs to)',
      });
    if (location.id !== undefined) {
      const key = `${location.organizationId}\n${location.id}`;
      const first = seenLocations.get(key);
      if (first !== undefined)
        errors.push({
          path: `${at}/id`,
          message: `duplicate location id '${location.id}' (also at /locations/${first})`,
        });
      else seenLocations.set(key, i);
    }
    errors.push(...checkLocation(location, at));
  });
  return errors;
}

/**
 * The checks of one location, at `at` (its JSON Pointer: `/locations/3` in a file, `` in a request
 * body): unique sensor group ids, each camera's line once per group, and opening intervals that are
 * not empty and do not overlap (overnight intervals included). All errors, not the first.
 */
export function checkLocation(location: Pick<LocationInput, 'sensorGroups'>, at = ''): FieldError[] {
  const errors: FieldError[] = [];
  const groupIds = new Map<number, number>();
  (location.sensorGroups ?? []).forEach((group, j) => {
    const gAt = `${at}/sensorGroups/${j}`;
    const first = groupIds.get(group.id);
    if (first !== undefined)
      errors.push({
        path: `${gAt}/id`,
        message: `duplicate sensor group id ${group.id} (also at ${at}/sensorGroups/${first})`,
      });
    else groupIds.set(group.id, j);
    const lines = new Map<string, number>();
    group.lines.forEach((line, k) => {
      const key = JSON.stringify([line.trackingCameraId, line.lineId]);
      const firstLine = lines.get(key);
      if (firstLine !== undefined) {
        errors.push({
          path: `${gAt}/lines/${k}`,
          message: `line '${line.lineId}' of camera '${line.trackingCameraId}' is already at ${gAt}/lines/${firstLine}`,
        });
      } else lines.set(key, k);
    });
    errors.push(...checkOpeningHours(group.openingHours, `${gAt}/openingHours`));
  });
  return errors;
}

interface WeekInterval {
  readonly start: number;
  readonly end: number;
  readonly path: string;
  readonly text: string;
}

/** Intervals must not be empty, and no two may overlap anywhere in the week (Sunday night wraps to Monday). */
export function checkOpeningHours(hours: OpeningHours, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const intervals: WeekInterval[] = [];
  WEEKDAYS.forEach((day, d) => {
    (hours[day] ?? []).forEach((interval, k) => {
      const path = `${at}/${day}/${k}`;
      const open = minutesOf(interval.open);
      const close = minutesOf(interval.close);
      if (open === close) {
        errors.push({ path: `${path}/close`, message: 'must differ from open (00:00 to 24:00 is a whole day)' });
        return;
      }
      const start = d * 1440 + open;
      const end = d * 1440 + (close < open ? close + 1440 : close);
      intervals.push({ start, end, path, text: `${day} ${interval.open}-${interval.close}` });
    });
  });
  // Each interval also as shifted by a week, so that Sunday night is compared with Monday morning.
  const all = [
    ...intervals,
    ...intervals.map((v) => ({ ...v, start: v.start + WEEK_MINUTES, end: v.end + WEEK_MINUTES })),
  ].sort((a, b) => a.start - b.start);
  const reported = new Set<string>();
  let reach: WeekInterval | undefined; // the interval reaching furthest so far
  for (const current of all) {
    if (reach && current.start < reach.end && reach.path !== current.path) {
      const pair = [reach.path, current.path].sort().join(' ');
      if (!reported.has(pair)) {
        reported.add(pair);
        errors.push({ path: current.path, message: `overlaps ${reach.text}` });
      }
    }
    if (!reach || current.end > reach.end) reach = current;
  }
  return errors;
}
