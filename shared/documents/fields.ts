/**
 * The field catalog: which fields each collection has, their kind, and the nested document a field
 * lives in. Validation, both engines and the index mappings all read this one table.
 */

export const COLLECTIONS = ['movementEvents', 'parkingLotStats', 'parkingEvents'] as const;
export type Collection = (typeof COLLECTIONS)[number];

export const NESTED_PATHS = ['crossedPaths', 'polygons'] as const;
export type NestedPath = (typeof NESTED_PATHS)[number];

/** keyword: exact strings (terms); number: stats and numeric ranges; date: ISO 8601 ranges, histograms. */
export type FieldKind = 'keyword' | 'number' | 'date';

export interface FieldDef {
  /** Full dotted name as used in requests, e.g. `crossedPaths.end`. */
  readonly name: string;
  readonly kind: FieldKind;
  /** The nested document the field belongs to; absent for fields of the root document. */
  readonly nestedPath?: NestedPath;
  /** A direction (A/B): terms on it put the key last in series names. */
  readonly direction?: boolean;
  /** Still accepted, answered with a Deprecation header. */
  readonly deprecated?: boolean;
}

const root = (name: string, kind: FieldKind): FieldDef => ({ name, kind });
const nested = (nestedPath: NestedPath, leaf: string, kind: FieldKind, extra: Partial<FieldDef> = {}): FieldDef => ({
  name: `${nestedPath}.${leaf}`,
  kind,
  nestedPath,
  ...extra,
});

const common: readonly FieldDef[] = [root('locationId', 'keyword'), root('timestamp', 'date')];

export const CATALOG: Readonly<Record<Collection, ReadonlyMap<string, FieldDef>>> = {
  movementEvents: byName([
    ...common,
    root('trackingCameraId', 'keyword'),
    root('label', 'keyword'),
    nested('crossedPaths', 'id', 'keyword'),
    nested('crossedPaths', 'end', 'keyword', { direction: true }),
    nested('crossedPaths', 'start', 'keyword', { direction: true, deprecated: true }),
    nested('polygons', 'id', 'keyword'),
    nested('polygons', 'value', 'number'),
  ]),
  parkingLotStats: byName([
    ...common,
    root('parkingLotId', 'keyword'),
    root('occupied', 'number'),
    root('free', 'number'),
    root('total', 'number'),
  ]),
  parkingEvents: byName([
    ...common,
    root('parkingLotId', 'keyword'),
    root('cameraId', 'keyword'),
    root('duration', 'number'),
    root('spotId', 'keyword'),
    root('startingTimestamp', 'date'),
  ]),
};

function byName(fields: readonly FieldDef[]): ReadonlyMap<string, FieldDef> {
  return new Map(fields.map((f) => [f.name, f]));
}

/** Nested paths a collection has (movement events: crossedPaths, polygons; the others none). */
export function nestedPathsOf(collection: Collection): readonly NestedPath[] {
  const paths = new Set<NestedPath>();
  for (const f of CATALOG[collection].values()) if (f.nestedPath) paths.add(f.nestedPath);
  return [...paths];
}

/** The opposite direction, for the deprecated crossedPaths.start (= inverse of crossedPaths.end). */
export const oppositeDirection = (d: string): string => (d === 'A' ? 'B' : d === 'B' ? 'A' : d);
