import { ValidationError } from '../errors';
import { parseOrThrow } from '../validation';
import { checkImportFile } from './checks';
import { generatedLocationId } from './ids';
import { byId, type Location, type SensorGroup } from './model';
import { ImportFileSchema, LocationInputSchema, type ImportFile, type LocationInput } from './schema';
import type { LocationStore } from './store';

/** One location of a validated import file, its id resolved. */
export interface ImportEntry {
  readonly id: string;
  /** True when the id was generated (the file gave none). */
  readonly generatedId: boolean;
  readonly input: LocationInput;
}

/**
 * The whole file, validated before anything is written: the zod schemas (the same ones the table's
 * data follows), and the checks across values, over every location the schemas accept even when
 * others are refused. Any error → one ValidationError listing them all, so a file is mended in one
 * round, not one round for the schema and another for the duplicates.
 */
export function validateImportFile(json: unknown): ImportEntry[] {
  let file: ImportFile;
  try {
    file = parseOrThrow(ImportFileSchema, json);
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    const raw = (json as { locations?: unknown } | null)?.locations;
    const accepted = Array.isArray(raw) ? raw.map((l) => LocationInputSchema.safeParse(l).data) : [];
    throw new ValidationError([...e.errors, ...checkImportFile(accepted)]);
  }
  const errors = checkImportFile(file.locations);
  if (errors.length > 0) throw new ValidationError(errors);
  const ordinals = new Map<string, number>();
  return file.locations.map((input) => {
    if (input.id !== undefined) return { id: input.id, generatedId: false, input };
    const key = JSON.stringify([input.organizationId, input.type, input.timezone]);
    const ordinal = ordinals.get(key) ?? 0;
    ordinals.set(key, ordinal + 1);
    return { id: generatedLocationId(input.organizationId, input.type, input.timezone, ordinal), generatedId: true, input };
  });
}

export type ImportOutcome = 'created' | 'updated' | 'unchanged';

export interface ImportResult {
  readonly organizationId: string;
  readonly id: string;
  readonly outcome: ImportOutcome;
  readonly groupsWritten: number;
  readonly groupsDeleted: number;
}

export interface ImportOptions {
  /** Timestamp of created or updated locations. */
  readonly now: Date;
  /** Written as createdBy (new locations) and updatedBy (changed ones) unless the file sets them. @default null */
  readonly actor?: string | null;
}

/**
 * Writes validated entries. The file is the desired state of the locations it names: changed or new
 * sensor groups are written, groups it no longer lists are deleted, and an unchanged location is not
 * touched (its updatedAt stays), so a re-run of the same file changes nothing. Locations the file does
 * not name are left alone.
 */
export async function applyImport(
  store: Pick<LocationStore, 'getLocationWithGroups' | 'putLocation' | 'putSensorGroup' | 'deleteSensorGroup'>,
  entries: readonly ImportEntry[],
  options: ImportOptions,
): Promise<ImportResult[]> {
  const results: ImportResult[] = [];
  for (const entry of entries) results.push(await importOne(store, entry, options));
  return results;
}

async function importOne(
  store: Pick<LocationStore, 'getLocationWithGroups' | 'putLocation' | 'putSensorGroup' | 'deleteSensorGroup'>,
  { id, input }: ImportEntry,
  options: ImportOptions,
): Promise<ImportResult> {
  const org = input.organizationId;
  const existing = await store.getLocationWithGroups(org, id);
  const groups: SensorGroup[] = (input.sensorGroups ?? []).map((g) => ({ ...g })).sort(byId);
  const before = new Map((existing?.sensorGroups ?? []).map((g) => [g.id, canonical(g)]));
  const changedGroups = groups.filter((g) => before.get(g.id) !== canonical(g));
  const removedGroupIds = [...before.keys()].filter((gid) => !groups.some((g) => g.id === gid));
  const old = existing?.location;
  const now = options.now.toISOString();
  const actor = options.actor ?? null;
  // Compared without the audit fields this import would set, so that a re-run is "unchanged".
  const location: Location = {
    id,
    organizationId: org,
    type: input.type,
    timezone: input.timezone,
    createdBy: input.createdBy !== undefined ? input.createdBy : old ? old.createdBy : actor,
    updatedBy: input.updatedBy !== undefined ? input.updatedBy : old ? old.updatedBy : actor,
    createdAt: old?.createdAt ?? now,
    updatedAt: old?.updatedAt ?? now,
  };
  const locationChanged = !old || canonical(old) !== canonical(location);
  const changed = locationChanged || changedGroups.length > 0 || removedGroupIds.length > 0;
  const outcome: ImportOutcome = !old ? 'created' : changed ? 'updated' : 'unchanged';
  for (const g of changedGroups) await store.putSensorGroup(org, id, g);
  if (outcome === 'created') await store.putLocation(location);
  // An update is by this import's actor (null: unknown) unless the file names the updater.
  if (outcome === 'updated') await store.putLocation({ ...location, updatedAt: now, updatedBy: input.updatedBy !== undefined ? input.updatedBy : actor });
  for (const gid of removedGroupIds) await store.deleteSensorGroup(org, id, gid);
  return { organizationId: org, id, outcome, groupsWritten: changedGroups.length, groupsDeleted: removedGroupIds.length };
}

/** JSON with sorted keys: equal values, equal text. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
