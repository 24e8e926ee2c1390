import { CATALOG, COLLECTIONS, type Collection, type NestedPath } from '#shared/documents/fields';
import type { AggregationInput } from '#shared/report/schema/aggregations';

/**
 * What the explorer offers to pick, per collection. The fields themselves come from the service's field
 * catalog (shared/documents/fields.ts); this file only adds the words a person reads and the breakdowns
 * that take more than one stage (a line with its direction).
 */

export const COLLECTION_LABELS: Readonly<Record<Collection, string>> = {
  movementEvents: 'Movement events',
  parkingLotStats: 'Parking lot stats',
  parkingEvents: 'Parking events',
};

export { COLLECTIONS };

/** A way to split the counts: the aggregation stages it adds under the time axis. */
export interface Breakdown {
  readonly id: string;
  readonly label: string;
  readonly stages: readonly AggregationInput[];
}

const terms = (field: string): AggregationInput => ({ type: 'terms', field });
const nested = (path: NestedPath): AggregationInput => ({ type: 'nested', path });

const byLocation: Breakdown = { id: 'locationId', label: 'Location', stages: [terms('locationId')] };

/** A profile stage; its time zone is the form's (buildRequest puts it in). */
const profile = (unit: 'hour' | 'weekday'): AggregationInput => ({ type: 'profile', unit, timeZone: 'UTC' });

/** Daily and weekly profiles (documents only: never under a nested stage). */
const profiles: readonly Breakdown[] = [
  { id: 'hour', label: 'Hour of day', stages: [profile('hour')] },
  { id: 'weekday', label: 'Day of week', stages: [profile('weekday')] },
  { id: 'weekdayHour', label: 'Day of week × hour', stages: [profile('weekday'), profile('hour')] },
];

export const BREAKDOWNS: Readonly<Record<Collection, readonly Breakdown[]>> = {
  movementEvents: [
    { id: 'label', label: 'Label (person, car…)', stages: [terms('label')] },
    { id: 'trackingCameraId', label: 'Camera', stages: [terms('trackingCameraId')] },
    {
      id: 'crossedPaths',
      label: 'Line and direction (crossings)',
      stages: [nested('crossedPaths'), terms('crossedPaths.id'), terms('crossedPaths.end')],
    },
    {
      // A line id names a line of one camera: with the camera, a series is one counting line's direction.
      id: 'cameraLine',
      label: 'Camera, line and direction (crossings)',
      stages: [terms('trackingCameraId'), nested('crossedPaths'), terms('crossedPaths.id'), terms('crossedPaths.end')],
    },
    { id: 'polygons', label: 'Zone (polygon visits)', stages: [nested('polygons'), terms('polygons.id')] },
    byLocation,
    ...profiles,
  ],
  parkingLotStats: [
    { id: 'parkingLotId', label: 'Parking lot', stages: [terms('parkingLotId')] },
    byLocation,
    ...profiles,
  ],
  parkingEvents: [
    { id: 'parkingLotId', label: 'Parking lot', stages: [terms('parkingLotId')] },
    { id: 'cameraId', label: 'Camera', stages: [terms('cameraId')] },
    { id: 'spotId', label: 'Parking spot', stages: [terms('spotId')] },
    byLocation,
    ...profiles,
  ],
};

export const STAT_NAMES = ['min', 'max', 'avg', 'sum', 'count', 'median'] as const;
export type StatName = (typeof STAT_NAMES)[number];

/** A number field stats can be asked of, with the nested path it lives in (if any). */
export interface StatsField {
  readonly name: string;
  readonly nestedPath?: NestedPath;
}

/** The number fields of a collection, in catalog order (deprecated fields left out). */
export function statsFields(collection: Collection): StatsField[] {
  return [...CATALOG[collection].values()]
    .filter((f) => f.kind === 'number' && !f.deprecated)
    .map((f) => (f.nestedPath ? { name: f.name, nestedPath: f.nestedPath } : { name: f.name }));
}

export const findBreakdown = (collection: Collection, id: string): Breakdown | undefined =>
  BREAKDOWNS[collection].find((b) => b.id === id);
