import { NotFoundError } from '../errors';
import type { DocumentWriter } from '../stores/store';
import { COLLECTIONS, type Collection } from '../documents/fields';
import { checkLines, writeChecked, type CheckedBatch, type IngestResult } from './batch';
import { ndjsonLines } from './ndjson';

/** What an ingest request needs besides its body: the organization's locations and where documents go. */
export interface IngestDeps {
  readonly locationIds: (organizationId: string) => Promise<ReadonlySet<string>>;
  readonly writer: DocumentWriter;
  /** Reads the body's lines as checkLines does, elsewhere (the local server's worker threads); none: here. */
  readonly check?: LineChecker;
}

/** checkLines over an NDJSON body's lines, done by someone else. */
export type LineChecker = (
  collection: Collection,
  body: string,
  tenancy: { readonly organizationId: string; readonly locationIds: ReadonlySet<string> },
) => Promise<CheckedBatch>;

/** The collection a path names (`/ingest/{collection}`, the names a report's `source` uses); 404 otherwise. */
export function collectionOf(name: string | undefined): Collection {
  const found = COLLECTIONS.find((c) => c === name);
  if (!found)
    throw new NotFoundError(
      `There is no collection '${String(name).slice(0, 64)}'; documents go to /ingest/${COLLECTIONS.join(', /ingest/')}.`,
    );
  return found;
}

/**
 * The whole ingest path, engine-neutral: an NDJSON body (decoded, bounded by the edge) of documents
 * of one collection for the caller's organization → each line validated and written exactly once.
 * The organization's locations are read once per request, so a location imported a moment ago is
 * already one a gateway may send documents for.
 */
export async function answerIngest(
  body: string,
  collection: Collection,
  organizationId: string,
  deps: IngestDeps,
): Promise<IngestResult> {
  const lines = ndjsonLines(body);
  const locationIds = await deps.locationIds(organizationId);
  const tenancy = { organizationId, locationIds };
  return writeChecked(
    collection,
    deps.check ? await deps.check(collection, body, tenancy) : checkLines(collection, lines, tenancy),
    deps.writer,
  );
}
