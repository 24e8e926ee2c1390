import type { OccupancyEntry } from './occupancy-entry';
import type { Location, SensorGroup } from './model';

/**
 * The single-table layout (pure: keys and item ↔ domain mapping).
 *
 * | item            | PK                        | SK                    |
 * |-----------------|---------------------------|-----------------------|
 * | location        | `ORG#<org>`               | `LOC#<locationId>`    |
 * | sensor group    | `ORG#<org>#LOC#<locationId>` | `GRP#<id, 10 digits>` |
 * | occupancy entry | `ORG#<org>#LOC#<locationId>` | `OCC#<id, 10 digits>` |
 *
 * `GET /locations` is one Query on `ORG#<org>` (nothing else lives there); live insights are one
 * GetItem plus one Query on the location's partition (its groups and entries together). The
 * organization is part of every key, so a read with the caller's organization cannot reach another
 * organization's items. Every item carries `kind`; occupancy entries carry `expiresAt` (TTL).
 */
export type Item = Record<string, unknown> & { PK: string; SK: string; kind: ItemKind };
export type ItemKind = 'location' | 'sensorGroup' | 'occupancy' | 'idempotency' | 'machineClient';

/** Entries expire (DynamoDB TTL on `expiresAt`) a day after their refresh, e.g. of removed locations. */
export const ENTRY_TTL_SECONDS = 24 * 3600;

export const orgKey = (org: string): string => `ORG#${org}`;
export const locationSortKey = (id: string): string => `LOC#${id}`;
export const locationPartition = (org: string, locationId: string): string => `ORG#${org}#LOC#${locationId}`;
const padded = (id: number): string => String(id).padStart(10, '0');
export const groupSortKey = (id: number): string => `GRP#${padded(id)}`;
export const occupancySortKey = (id: number): string => `OCC#${padded(id)}`;

export function locationItem(l: Location): Item {
  return {
    PK: orgKey(l.organizationId),
    SK: locationSortKey(l.id),
    kind: 'location',
    id: l.id,
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
    lines: g.lines.map((l) => ({ trackingCameraId: l.trackingCameraId, lineId: l.lineId, inDirection: l.inDirection })),
    openingHours: g.openingHours,
  };
}

export function toSensorGroup(item: Record<string, unknown>): SensorGroup {
  return {
    id: Number(item.id),
    name: item.name as string,
    lines: item.lines as SensorGroup['lines'],
    openingHours: (item.openingHours ?? {}) as SensorGroup['openingHours'],
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
