import type { FieldChange, LocationChange } from '#shared/locations/changes';
import { el } from '../dashboard/panel';
import type { AdminApi } from '../model/admin-api';
import { messageOf } from './parts';

/**
 * A location's change log in the admin screen (`GET /locations/{locationId}/changes`): newest first,
 * each entry with its revision, when (on the location's clock, the zone named), who (the token's
 * `sub`) and what went from what to what.
 */

const ACTIONS: Readonly<Record<LocationChange['action'], string>> = {
  created: 'Created',
  updated: 'Changed',
  deleted: 'Deleted',
  recreated: 'Created again',
};

/** A value of the log as people read it: text and numbers as they are, the rest as JSON, cut at 80 characters. */
export function valueText(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = typeof value === 'string' || typeof value === 'number' ? String(value) : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** One field's change: `/sensorGroups/2/capacity: 40 → 80`. */
export const changeText = (c: FieldChange, omitted: boolean): string =>
  omitted ? c.path : `${c.path}: ${valueText(c.before)} → ${valueText(c.after)}`;

/** When, on the location's clock: `Nov 28, 2026, 11:02 AM (Europe/Berlin)`. */
const when = (at: string, zone: string) =>
  `${new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: zone }).format(Date.parse(at))} (${zone})`;

/** Draws the newest entries of the log into `section`. */
export async function showChanges(
  api: AdminApi,
  section: HTMLElement,
  locationId: string,
  zone: string,
): Promise<void> {
  const heading = el('h3', { id: 'admin-changes-h' }, 'Change log');
  section.replaceChildren(heading, el('p', { className: 'hint' }, 'Loading…'));
  try {
    const changes = await api.changes(locationId);
    const list = el(
      'ol',
      { className: 'admin-changes', reversed: true },
      ...changes.map((c) =>
        el(
          'li',
          { value: c.revision },
          el('span', { className: 'name' }, `${ACTIONS[c.action]} (revision ${c.revision})`),
          ` ${when(c.at, zone)} by ${c.by ?? 'an import'}`,
          el('ul', {}, ...c.changes.map((f) => el('li', {}, changeText(f, c.valuesOmitted === true)))),
        ),
      ),
    );
    section.replaceChildren(heading, changes.length === 0 ? el('p', { className: 'hint' }, 'No changes yet.') : list);
  } catch (e) {
    section.replaceChildren(heading, el('p', { className: 'hint' }, messageOf(e)));
  }
}
