import { canonical } from './canonical';
import type { LocationWithGroups, SensorGroup } from './model';

/**
 * The change log of a location: one entry per write, with who, when and which fields went from what
 * to what (`GET /locations/{locationId}/changes`). Written in the same transaction as the change
 * itself, so the log and the location never disagree.
 */

/**
 * One field that changed. `path` is a JSON Pointer into the location, sensor groups named by their
 * id (`/sensorGroups/3/capacity`, not by their place in a list): `/name`, `/type`, `/timezone`, a
 * whole group (`/sensorGroups/3`, when it was added or removed), or a group's `name`, `capacity`,
 * `lines` or `openingHours`. `before` is absent when the field did not exist, `after` when it no
 * longer does.
 */
export interface FieldChange {
  readonly path: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

export type ChangeAction = 'created' | 'updated' | 'deleted' | 'recreated';

export interface LocationChange {
  /** The location's revision after this change (its ETag then). */
  readonly revision: number;
  /** ISO 8601 UTC with ms. */
  readonly at: string;
  /** The subject (`sub`) of the token that made it; for an import into a table, its `--actor` (null: none given). */
  readonly by: string | null;
  /** `recreated`: created again under the id of a deleted location (`reuseDeletedId`). */
  readonly action: ChangeAction;
  readonly changes: readonly FieldChange[];
  /** True when the values were too large to keep (the paths are all there): `before` and `after` left out. */
  readonly valuesOmitted?: boolean;
}

/**
 * Largest change entry kept with its values (bytes of JSON); beyond it only the paths are kept, well
 * within DynamoDB's 400 KB item (50 groups of 200 lines, all replaced, would pass it).
 */
export const MAX_CHANGE_VALUES_BYTES = 100_000;

/** The fields a location's change is compared on (the desired state; the audit fields are not changes of their own). */
export type LocationState = Pick<LocationWithGroups, 'sensorGroups'> & {
  readonly location: { readonly name: string; readonly type: string; readonly timezone: string };
};

const GROUP_FIELDS = ['name', 'capacity', 'lines', 'openingHours'] as const;

/** What differs between two states (undefined: the location did not exist, or no longer does), in a fixed order. */
export function diffLocations(before: LocationState | undefined, after: LocationState | undefined): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of ['name', 'type', 'timezone'] as const) {
    changes.push(...fieldChange(`/${field}`, before?.location[field], after?.location[field]));
  }
  const old = new Map((before?.sensorGroups ?? []).map((g) => [g.id, g]));
  const now = new Map((after?.sensorGroups ?? []).map((g) => [g.id, g]));
  const ids = [...new Set([...old.keys(), ...now.keys()])].sort((a, b) => a - b);
  for (const id of ids) {
    const [b, a] = [old.get(id), now.get(id)];
    if (!b || !a) {
      changes.push({
        path: `/sensorGroups/${id}`,
        ...(b ? { before: groupState(b) } : {}),
        ...(a ? { after: groupState(a) } : {}),
      });
      continue;
    }
    for (const field of GROUP_FIELDS) changes.push(...fieldChange(`/sensorGroups/${id}/${field}`, b[field], a[field]));
  }
  return changes;
}

function fieldChange(path: string, before: unknown, after: unknown): FieldChange[] {
  if (canonical(before) === canonical(after)) return [];
  return [{ path, ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) }];
}

/** A group as the log shows it: its desired state, without the history the service keeps. */
function groupState(g: SensorGroup): Omit<SensorGroup, 'capacityHistory'> {
  return {
    id: g.id,
    name: g.name,
    ...(g.capacity !== undefined ? { capacity: g.capacity } : {}),
    lines: g.lines,
    openingHours: g.openingHours,
  };
}

/** The entry to write: with its values when they are small enough, else the paths only. */
export function changeEntry(entry: Omit<LocationChange, 'valuesOmitted'>): LocationChange {
  if (new TextEncoder().encode(JSON.stringify(entry.changes)).length <= MAX_CHANGE_VALUES_BYTES) return entry;
  return { ...entry, changes: entry.changes.map((c) => ({ path: c.path })), valuesOmitted: true };
}
