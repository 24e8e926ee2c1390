import { WEEKDAYS, type Weekday } from '#shared/locations/model';

/**
 * The admin screen's location form, as plain values (web/src/admin/admin.ts draws it): to and from
 * the body of `POST` and `PUT /locations` (the service validates; the page only shapes), and where
 * each part of the body comes from, so that the API's errors (`errors[].path`, JSON Pointers into the
 * body) are shown at their fields. Opening hours are typed per weekday as `08:00-20:00, 21:00-02:00`
 * (empty: closed).
 */

export interface LineValues {
  trackingCameraId: string;
  lineId: string;
  inDirection: 'A' | 'B';
}

export interface GroupValues {
  id: string;
  name: string;
  /** Empty: no capacity. */
  capacity: string;
  lines: LineValues[];
  /** Per weekday, `HH:MM-HH:MM` intervals separated by commas. */
  hours: Record<Weekday, string>;
}

export interface LocationValues {
  id: string;
  name: string;
  type: string;
  timezone: string;
  groups: GroupValues[];
}

/** A location as the API answers it (`GET /locations/{locationId}`), the fields the form edits. */
export interface LocationResourceLike {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly timezone: string;
  readonly sensorGroups: readonly {
    readonly id: number;
    readonly name: string;
    readonly capacity?: number;
    readonly lines: readonly LineValues[];
    readonly openingHours: Readonly<
      Partial<Record<Weekday, readonly { readonly open: string; readonly close: string }[]>>
    >;
  }[];
}

export const emptyLine = (): LineValues => ({ trackingCameraId: '', lineId: '', inDirection: 'A' });

export function emptyGroup(id: number): GroupValues {
  return {
    id: String(id),
    name: '',
    capacity: '',
    lines: [emptyLine()],
    hours: Object.fromEntries(WEEKDAYS.map((d) => [d, '08:00-20:00'])) as Record<Weekday, string>,
  };
}

export const emptyLocation = (): LocationValues => ({
  id: '',
  name: '',
  type: 'store',
  timezone: 'UTC',
  groups: [emptyGroup(1)],
});

export function valuesOf(resource: LocationResourceLike): LocationValues {
  return {
    id: resource.id,
    name: resource.name,
    type: resource.type,
    timezone: resource.timezone,
    groups: resource.sensorGroups.map((g) => ({
      id: String(g.id),
      name: g.name,
      capacity: g.capacity === undefined ? '' : String(g.capacity),
      lines: g.lines.map((l) => ({
        trackingCameraId: l.trackingCameraId,
        lineId: l.lineId,
        inDirection: l.inDirection,
      })),
      hours: Object.fromEntries(
        WEEKDAYS.map((d) => [d, (g.openingHours[d] ?? []).map((i) => `${i.open}-${i.close}`).join(', ')]),
      ) as Record<Weekday, string>,
    })),
  };
}

/**
 * A number as typed: a whole number stays a number, anything else the text itself, so that the
 * service refuses it with its own message at its own path ("must be an integer …").
 */
const numberOrText = (text: string): number | string =>
  /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text.trim();

/**
 * `08:00-20:00, 21:00-02:00` → intervals; a piece that is not `open-close` goes as it is typed (the service names it).
 */
function intervalsOf(text: string): { open: string; close: string }[] {
  return text
    .split(',')
    .map((piece) => piece.trim())
    .filter((piece) => piece !== '')
    .map((piece) => {
      const [open = '', close = ''] = piece.split(/\s*[-–]\s*/);
      return { open, close };
    });
}

/** The request body of the form (the whole desired state). */
export function bodyOf(values: LocationValues, options: { readonly withId: boolean }): Record<string, unknown> {
  return {
    ...(options.withId && values.id.trim() !== '' ? { id: values.id.trim() } : {}),
    ...(values.name.trim() !== '' ? { name: values.name.trim() } : {}),
    type: values.type.trim(),
    timezone: values.timezone.trim(),
    sensorGroups: values.groups.map((g) => ({
      id: numberOrText(g.id),
      name: g.name.trim(),
      ...(g.capacity.trim() !== '' ? { capacity: numberOrText(g.capacity) } : {}),
      lines: g.lines.map((l) => ({
        trackingCameraId: l.trackingCameraId.trim(),
        lineId: l.lineId.trim(),
        inDirection: l.inDirection,
      })),
      openingHours: Object.fromEntries(
        WEEKDAYS.flatMap((d) => (g.hours[d].trim() === '' ? [] : [[d, intervalsOf(g.hours[d])]])),
      ),
    })),
  };
}

/**
 * The field an error of the API belongs to: the field whose pointer is the longest prefix of the
 * error's path (`/sensorGroups/0/openingHours/monday/1/close` → the Monday field of the first group),
 * else none (the message goes to the form as a whole).
 */
export function fieldFor(fieldPointers: readonly string[], path: string): string | undefined {
  let best: string | undefined;
  for (const pointer of fieldPointers) {
    if ((path === pointer || path.startsWith(`${pointer}/`)) && (best === undefined || pointer.length > best.length))
      best = pointer;
  }
  return best;
}
