import type { OccupancyEntry } from './occupancy-entry';
import type { LocationChange } from './changes';
import type { DeletedLocation, Location, SensorGroup } from './model';

/**
 * The single-table layout (pure: keys and item ↔ domain mapping).
 *
 * | item            | PK                        | SK                    |
 * |-----------------|---------------------------|-----------------------|
 * | location        | `ORG#<org>`               | `LOC#<locationId>`    |
 * | sensor group    | `ORG#<org>#LOC#<locationId>` | `GRP#<id, 10 digits>` |
 * | occupancy entry | `ORG#<org>#LOC#<locationId>` | `OCC#<id, 10 digits>` |
 * | deleted location | `ORG#<org>`               | `DEL#<locationId>`    |
 * | change log entry | `ORG#<org>#CHG#<locationId>` | `REV#<revision, 10 digits>` |
 *
 * `GET /locations` is one Query on `ORG#<org>` (nothing else lives there); live insights are one
 * GetItem plus one Query on the location's partition (its groups and entries together). The
 * organization is part of every key, so a read with the caller's organization cannot reach another
 * organization's items. Every item carries `kind`; occupancy entries carry `expiresAt` (TTL).
 * A deleted location leaves a record (`DEL#`) beside where it was, so that its id is not taken again
 * unawares; its change log has a partition of its own, read newest first, so that the log's growth
 * never slows the reads of the location.
 */
export type Item = Record<string, unknown> & { PK: string; SK: string; kind: ItemKind };
export type ItemKind =
  | 'location'
  | 'sensorGroup'
  | 'occupancy'
  | 'idempotency'
  | 'machineClient'
  | 'deletedLocation'
  | 'locationChange'
  | 'machineClientUse'
  | 'webhookEndpoint'
  | 'webhookEndpointState'
  | 'webhookDelivery'
  | 'alertRule'
  | 'alertState';

/** Entries expire (DynamoDB TTL on `expiresAt`) a day after their refresh, e.g. of removed locations. */
export const ENTRY_TTL_SECONDS = 24 * 3600;

export const orgKey = (org: string): string => `ORG#${org}`;
export const locationSortKey = (id: string): string => `LOC#${id}`;
export const locationPartition = (org: string, locationId: string): string => `ORG#${org}#LOC#${locationId}`;
const padded = (id: number): string => String(id).padStart(10, '0');
export const groupSortKey = (id: number): string => `GRP#${padded(id)}`;
export const occupancySortKey = (id: number): string => `OCC#${padded(id)}`;
export const deletedSortKey = (id: string): string => `DEL#${id}`;
export const changePartition = (org: string, locationId: string): string => `ORG#${org}#CHG#${locationId}`;
export const changeSortKey = (revision: number): string => `REV#${padded(revision)}`;
/** The attribute that counts a location's writes (the ETag), on its item and its deletion record. */
export const REVISION = 'revision';

export function locationItem(l: Location, revision: number): Item {
  return {
    PK: orgKey(l.organizationId),
    SK: locationSortKey(l.id),
    kind: 'location',
    id: l.id,
    name: l.name,
    [REVISION]: revision,
    organizationId: l.organizationId,
    type: l.type,
    timezone: l.timezone,
    createdBy: l.createdBy,
    updatedBy: l.updatedBy,
    createdAt: l.createdAt,
    updatedAt: l.updatedAt,
  };
}

export function toLocation(item: Record<string, unknown>): Location {
  return {
    id: item.id as string,
    // Written before names existed: called by its id.
    name: typeof item.name === 'string' && item.name !== '' ? item.name : (item.id as string),
    organizationId: item.organizationId as string,
    type: item.type as string,
    timezone: item.timezone as string,
    createdBy: (item.createdBy as string | null | undefined) ?? null,
    updatedBy: (item.updatedBy as string | null | undefined) ?? null,
    createdAt: item.createdAt as string,
    updatedAt: item.updatedAt as string,
  };
}

export function sensorGroupItem(org: string, locationId: string, g: SensorGroup): Item {
  return {
    PK: locationPartition(org, locationId),
    SK: groupSortKey(g.id),
    kind: 'sensorGroup',
    organizationId: org,
    locationId,
    id: g.id,
    name: g.name,
    ...(g.capacity !== undefined ? { capacity: g.capacity } : {}),
    ...(g.capacityHistory && g.capacityHistory.length > 0
      ? { capacityHistory: g.capacityHistory.map((c) => ({ since: c.since, capacity: c.capacity })) }
      : {}),
    lines: g.lines.map((l) => ({ trackingCameraId: l.trackingCameraId, lineId: l.lineId, inDirection: l.inDirection })),
    openingHours: g.openingHours,
  };
}

export function toSensorGroup(item: Record<string, unknown>): SensorGroup {
  const history = Array.isArray(item.capacityHistory)
    ? (item.capacityHistory as SensorGroup['capacityHistory'])
    : undefined;
  return {
    id: Number(item.id),
    name: item.name as string,
    ...(typeof item.capacity === 'number' ? { capacity: item.capacity } : {}),
    ...(history && history.length > 0
      ? {
          capacityHistory: history.map((c) => ({
            since: c.since,
            capacity: c.capacity === null ? null : Number(c.capacity),
          })),
        }
      : {}),
    lines: item.lines as SensorGroup['lines'],
    openingHours: (item.openingHours ?? {}) as SensorGroup['openingHours'],
  };
}

/** The location's revision as stored (0: written before revisions were kept). */
export const revisionOf = (item: Record<string, unknown>): number =>
  typeof item[REVISION] === 'number' ? (item[REVISION] as number) : Number(item[REVISION] ?? 0);

export function deletedItem(d: DeletedLocation): Item {
  return {
    PK: orgKey(d.organizationId),
    SK: deletedSortKey(d.id),
    kind: 'deletedLocation',
    ...d,
    [REVISION]: d.revision,
  };
}

export function toDeletedLocation(item: Record<string, unknown>): DeletedLocation {
  return {
    id: item.id as string,
    organizationId: item.organizationId as string,
    deletedAt: item.deletedAt as string,
    deletedBy: (item.deletedBy as string | null | undefined) ?? null,
    revision: revisionOf(item),
  };
}

export function changeItem(org: string, locationId: string, c: LocationChange): Item {
  return {
    PK: changePartition(org, locationId),
    SK: changeSortKey(c.revision),
    kind: 'locationChange',
    organizationId: org,
    locationId,
    ...c,
  };
}

export function toLocationChange(item: Record<string, unknown>): LocationChange {
  return {
    revision: Number(item.revision),
    at: item.at as string,
    by: (item.by as string | null | undefined) ?? null,
    action: item.action as LocationChange['action'],
    changes: (item.changes ?? []) as LocationChange['changes'],
    ...(item.valuesOmitted === true ? { valuesOmitted: true } : {}),
  };
}

export function occupancyItem(e: OccupancyEntry): Item {
  return {
    PK: locationPartition(e.organizationId, e.locationId),
    SK: occupancySortKey(e.sensorGroupId),
    kind: 'occupancy',
    ...e,
    expiresAt: Math.floor(Date.parse(e.refreshedAt) / 1000) + ENTRY_TTL_SECONDS,
  };
}

export function toOccupancyEntry(item: Record<string, unknown>): OccupancyEntry {
  return {
    organizationId: item.organizationId as string,
    locationId: item.locationId as string,
    sensorGroupId: Number(item.sensorGroupId),
    name: item.name as string,
    occupancy: Number(item.occupancy),
    openedAt: item.openedAt as string,
    refreshedAt: item.refreshedAt as string,
  };
}
