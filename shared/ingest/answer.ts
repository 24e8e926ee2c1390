import { NotFoundError } from '../errors';
import type { DocumentWriter } from '../report/engines/document-writer';
import { COLLECTIONS, type Collection } from '../report/fields';
import { ingestBatch, type IngestResult } from './batch';
import { ndjsonLines } from './ndjson';

/** What an ingest request needs besides its body: the organization's locations and where documents go. */
export interface IngestDeps {
  readonly locationIds: (organizationId: string) => Promise<ReadonlySet<string>>;
  readonly writer: DocumentWriter;
}

/** The collection a path names (`/ingest/{collection}`, the names a report's `source` uses); 404 otherwise. */
export function collectionOf(name: string | undefined): Collection {
  const found = COLLECTIONS.find((c) => c === name);
  if (!found) throw new NotFoundError(`There is no collection '${String(name).slice(0, 64)}'; documents go to /ingest/${COLLECTIONS.join(', /ingest/')}.`);
  return found;
}

/**
 * The whole ingest path, engine-neutral: an NDJSON body (decoded, bounded by the edge) of documents
 * of one collection for the caller's organization → each line validated and written exactly once.
 * The organization's locations are read once per request, so a location imported a moment ago is
 * already one a gateway may send documents for.
 */
export async function answerIngest(body: string, collection: Collection, organizationId: string, deps: IngestDeps): Promise<IngestResult> {
  const lines = ndjsonLines(body);
  const locationIds = await deps.locationIds(organizationId);
  return ingestBatch(collection, lines, { organizationId, locationIds }, deps.writer);
}
