import { ValidationError, type FieldError } from '../errors';
import { documentIdentity } from '../documents/identity';
import { firstOfEachIdentity, type DocumentIdentity, type DocumentToWrite } from '../documents/identified';
import { parseDocument, type ReportDocument } from '../documents/documents';
import type { DocumentWriter, WriteOutcome } from '../stores/store';
import type { Collection } from '../documents/fields';

/**
 * One document of a batch: an NDJSON line's text (parsed here), or a value already parsed (the CLIs). `line` numbers it
 * in answers.
 */
export type BatchLine =
  | { readonly line: number; readonly text: string }
  | { readonly line: number; readonly value: unknown };

/** A line that was not written, with every reason (JSON Pointers into the line's document). */
export interface RejectedLine {
  readonly line: number;
  readonly errors: readonly FieldError[];
}

/**
 * The answer to a batch: how many lines were written, how many were already stored (a batch sent
 * again changes nothing and says so here), and the lines refused for good, with why. A client never
 * sends a refused line again as it is; it may send the whole batch again at any time.
 */
export interface IngestResult {
  readonly accepted: number;
  readonly duplicates: number;
  readonly rejected: readonly RejectedLine[];
}

/**
 * Whose documents a batch may hold. With `organizationId` (the API: the caller's token), a line's
 * `organizationId` may be left out (it is the token's) but never name another organization, and
 * `locationIds` are the organization's locations, the only ones its lines may name. Without (an
 * operator's direct load), every line names its own organization and location.
 */
export interface Tenancy {
  readonly organizationId?: string;
  readonly locationIds?: ReadonlySet<string>;
}

export const CONFLICT_MESSAGE =
  'conflict: a different document with this id was written first, and the first write wins';

/** A line that holds a valid document of the batch, with who it is. */
export interface CheckedLine<C extends Collection = Collection> extends DocumentToWrite<C> {
  readonly line: number;
}

/** A batch's lines once read: the valid documents in line order, and the lines refused, with why. */
export interface CheckedBatch<C extends Collection = Collection> {
  readonly valid: readonly CheckedLine<C>[];
  readonly rejected: readonly RejectedLine[];
}

/**
 * Validates each line, writes the valid ones exactly once through `writer`, and answers per line.
 * Lines are independent: a refused line stops no other. A line is refused when it is not JSON, breaks
 * the collection's document schema, names another organization or a location the organization does
 * not have, or names an `id` already written with other content (a conflict).
 */
export async function ingestBatch(
  collection: Collection,
  lines: readonly BatchLine[],
  tenancy: Tenancy,
  writer: DocumentWriter,
): Promise<IngestResult> {
  return writeChecked(collection, checkLines(collection, lines, tenancy), writer);
}

/**
 * The first half of ingestBatch, with no I/O: each line parsed, validated against the collection's
 * schema and the tenancy, and given its identity (`identify`, documentIdentity unless the caller
 * keeps more of it, or a benchmark puts a placeholder). The local server runs it on worker threads
 * (bin/local/line-checkers.ts) while its own thread writes other batches.
 */
export function checkLines(
  collection: Collection,
  lines: readonly BatchLine[],
  tenancy: Tenancy,
  identify: (collection: Collection, document: ReportDocument, index: number) => DocumentIdentity = documentIdentity,
): CheckedBatch {
  const rejected: RejectedLine[] = [];
  const valid: CheckedLine[] = [];
  for (const entry of lines) {
    const errors: FieldError[] = [];
    const document = parseLine(collection, entry, tenancy, errors);
    if (document) valid.push({ line: entry.line, document, identity: identify(collection, document, valid.length) });
    else rejected.push({ line: entry.line, errors });
  }
  return { valid, rejected };
}

/** The second half of ingestBatch: the valid lines written exactly once, and the answer. */
export async function writeChecked(
  collection: Collection,
  { valid, rejected: refused }: CheckedBatch,
  writer: DocumentWriter,
): Promise<IngestResult> {
  const rejected = [...refused];
  const { distinct, repeated } = firstOfEachIdentity(valid);
  const outcomes = new Map<number, WriteOutcome>(repeated);
  const written = await writer.write(
    collection,
    distinct.map((i) => valid[i] as DocumentToWrite),
  );
  written.forEach((o, j) => outcomes.set(distinct[j] as number, o));
  let accepted = 0;
  let duplicates = 0;
  valid.forEach(({ line }, i) => {
    const outcome = outcomes.get(i) as WriteOutcome;
    if (outcome.kind === 'written') accepted++;
    else if (outcome.kind === 'duplicate') duplicates++;
    else
      rejected.push({
        line,
        errors: [
          outcome.kind === 'conflict'
            ? { path: '/id', message: CONFLICT_MESSAGE }
            : { path: '', message: outcome.reason },
        ],
      });
  });
  rejected.sort((a, b) => a.line - b.line);
  return { accepted, duplicates, rejected };
}

function parseLine(collection: Collection, entry: BatchLine, tenancy: Tenancy, errors: FieldError[]) {
  let value: unknown;
  try {
    value = 'text' in entry ? JSON.parse(entry.text) : entry.value;
  } catch (e) {
    errors.push({ path: '', message: `not JSON: ${(e as Error).message}` });
    return undefined;
  }
  const org = tenancy.organizationId;
  if (org !== undefined && isObject(value)) {
    if (value.organizationId !== undefined && value.organizationId !== org) {
      errors.push({ path: '/organizationId', message: "must be the token's organization, or left out" });
    }
    value = { ...value, organizationId: org };
  }
  let document: ReturnType<typeof parseDocument>;
  try {
    document = parseDocument(collection, value);
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    errors.push(...e.errors);
    return undefined;
  }
  if (tenancy.locationIds && !tenancy.locationIds.has(document.locationId)) {
    errors.push({ path: '/locationId', message: 'is not a location of your organization (GET /locations lists them)' });
  }
  return errors.length === 0 ? document : undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
