import { ValidationError } from '../errors';
import { parseOrThrow } from '../validation';
import { saveLocation, type SaveOutcome } from './admin';
import { canonical } from './canonical';
import { checkImportFile, checkLocation } from './checks';
import { generatedLocationId } from './ids';
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
    return {
      id: generatedLocationId(input.organizationId as string, input.type, input.timezone, ordinal),
      generatedId: true,
      input,
    };
  });
}

/**
 * One location of a request body (POST and PUT), validated as a location of a file is: the schema,
 * then the cross-checks of ./checks.ts, every error at its JSON Pointer in the body.
 */
export function validateLocationInput(json: unknown): LocationInput {
  const input = parseOrThrow(LocationInputSchema, json);
  const errors = checkLocation(input);
  if (errors.length > 0) throw new ValidationError(errors);
  return input;
}

export type ImportOutcome = SaveOutcome;

export interface ImportResult {
  readonly organizationId: string;
  readonly id: string;
  readonly outcome: ImportOutcome;
  readonly groupsWritten: number;
  readonly groupsDeleted: number;
}

export interface ImportOptions {
  /** Time of the writes. */
  readonly now: Date;
  /** Written as createdBy (new locations), updatedBy (changed ones) and the change log's `by`. @default null */
  readonly actor?: string | null;
  /** Take back the ids of deleted locations (their documents then count as the new location's). @default false */
  readonly reuseDeletedIds?: boolean;
}

type ImportStore = Pick<LocationStore, 'getLocationWithGroups' | 'findDeletedLocation' | 'writeLocation'>;

/**
 * Writes validated entries, each location in one transaction with its change log entry, by the
 * same code as the administration API (./admin.ts). The file is the desired state of the locations
 * it names: changed or new sensor groups are written, groups it no longer lists are deleted, an
 * unchanged location is not touched (its revision and updatedAt stay), so a re-run of the same file
 * changes nothing. Locations the file does not name are left alone. Ids of deleted locations are
 * refused before anything is written (unless `reuseDeletedIds`), every one of them at once.
 */
export async function applyImport(
  store: ImportStore,
  entries: readonly ImportEntry[],
  options: ImportOptions,
): Promise<ImportResult[]> {
  if (!options.reuseDeletedIds) await refuseDeletedIds(store, entries);
  const results: ImportResult[] = [];
  for (const entry of entries) results.push(await importOne(store, entry, options));
  return results;
}

async function refuseDeletedIds(store: ImportStore, entries: readonly ImportEntry[]): Promise<void> {
  const refused = await Promise.all(
    entries.map(async (entry, i) => {
      const org = entry.input.organizationId as string;
      const deleted = (await store.getLocationWithGroups(org, entry.id))
        ? undefined
        : await store.findDeletedLocation(org, entry.id);
      return deleted
        ? [
            {
              path: `/locations/${i}/id`,
              message: `location '${entry.id}' was deleted at ${deleted.deletedAt} and its documents remain; choose another id, or import with --reuse-deleted-ids`,
            },
          ]
        : [];
    }),
  );
  const errors = refused.flat();
  if (errors.length > 0) throw new ValidationError(errors);
}

async function importOne(
  store: ImportStore,
  { id, input }: ImportEntry,
  options: ImportOptions,
): Promise<ImportResult> {
  const org = input.organizationId as string;
  const before = (await store.getLocationWithGroups(org, id))?.sensorGroups ?? [];
  const context = { organizationId: org, actor: options.actor ?? null, now: options.now };
  const { location, outcome } = await saveLocation(store, context, id, input, {
    reuseDeletedIds: options.reuseDeletedIds ?? false,
  });
  const old = new Map(before.map((g) => [g.id, canonical(g)]));
  const after = location.sensorGroups;
  return {
    organizationId: org,
    id,
    outcome,
    groupsWritten: outcome === 'unchanged' ? 0 : after.filter((g) => old.get(g.id) !== canonical(g)).length,
    groupsDeleted: before.filter((g) => !after.some((a) => a.id === g.id)).length,
  };
}
