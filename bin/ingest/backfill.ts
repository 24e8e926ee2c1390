import { statSync } from 'node:fs';
import type { FieldError } from '#shared/errors';
import { REQUEST_LIMITS, ndjsonBatches, openNdjson, type Batch, type BatchLimits } from './batches';
import type { Sender } from './send';

/** A line of the file that was not written, by its number in the file, and why. */
export interface RejectedFileLine {
  readonly line: number;
  readonly errors: readonly FieldError[];
}

/** What a backfill did: the API's counts summed over every batch, and what it could not do. */
export interface BackfillTotals {
  accepted: number;
  duplicates: number;
  /** Refused by the API (or too long to send), for good: sending them again as they are changes nothing. */
  rejected: number;
  /**
   * Lines of batches that were not answered, after every retry (or refused whole, a 4xx): not written, or not known to
   * be.
   */
  notSent: number;
  failedBatches: number;
  batches: number;
  /** Sends after the first, over every batch. */
  retries: number;
}

export interface BackfillEvents {
  /** A line refused for good, by its file line number. */
  rejected(line: RejectedFileLine): void;
  /** A batch that failed: its first and last file line, and why. */
  failed(firstLine: number, lastLine: number, reason: string): void;
  /**
   * After each answered or failed batch: bytes of the file read so far (as stored, compressed or not), of `totalBytes`.
   */
  progress(bytesRead: number, totalBytes: number, totals: Readonly<BackfillTotals>): void;
}

export const emptyTotals = (): BackfillTotals => ({
  accepted: 0,
  duplicates: 0,
  rejected: 0,
  notSent: 0,
  failedBatches: 0,
  batches: 0,
  retries: 0,
});

/**
 * Sends one NDJSON file (gzip or not) to the ingest API in batches that each fit one request, at most
 * `concurrency` requests at once, and sums the answers into `totals`. The file is read only as fast
 * as batches are sent, so memory holds about `concurrency + 1` batches whatever the file's size.
 * The API's line numbers (of a batch) come back as the file's. Nothing here is kept between runs: a
 * run after a crash sends the file again, and what was written comes back as duplicates.
 */
export async function backfillFile(
  file: string,
  collection: string,
  sender: Sender,
  options: { readonly concurrency: number; readonly limits?: BatchLimits },
  totals: BackfillTotals,
  events: BackfillEvents,
): Promise<void> {
  const { raw, text } = openNdjson(file);
  const totalBytes = statSync(file).size;
  const tooLong = (line: number, message: string) => {
    totals.rejected++;
    events.rejected({ line, errors: [{ path: '', message }] });
  };
  const running = new Set<Promise<void>>();
  const sendOne = async (batch: Batch) => {
    totals.batches++;
    const outcome = await sender.send(collection, batch.body);
    totals.retries += outcome.retries;
    if (outcome.kind === 'failed') {
      totals.failedBatches++;
      totals.notSent += batch.fileLines.length;
      events.failed(
        batch.fileLines[0] as number,
        batch.fileLines[batch.fileLines.length - 1] as number,
        outcome.reason,
      );
    } else {
      const { accepted, duplicates, rejected } = outcome.result;
      totals.accepted += accepted;
      totals.duplicates += duplicates;
      totals.rejected += rejected.length;
      for (const r of rejected) events.rejected({ line: batch.fileLines[r.line - 1] ?? r.line, errors: r.errors });
    }
    events.progress(raw.bytesRead, totalBytes, totals);
  };
  for await (const batch of ndjsonBatches(text, options.limits ?? REQUEST_LIMITS, ({ line, message }) =>
    tooLong(line, message),
  )) {
    const task: Promise<void> = sendOne(batch).finally(() => running.delete(task));
    running.add(task);
    if (running.size >= options.concurrency) await Promise.race(running);
  }
  await Promise.all(running);
  events.progress(totalBytes, totalBytes, totals);
}
