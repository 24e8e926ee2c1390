import { EngineUnavailableError } from '#shared/errors';
import type { DocumentWriter } from '#shared/stores/store';

export interface ClosingWriter extends DocumentWriter {
  /**
   * Refuses every write from now on (503 with Retry-After: the ingest retry rule sends the batch
   * again) and resolves once the writes already begun have ended, so that the database can be
   * checkpointed and closed under none.
   */
  close(): Promise<void>;
}

/**
 * `writer` as the local server stops (npm start's SIGTERM or Ctrl-C): a batch whose write had begun
 * is written and answered (the server waits for its answer), one that reaches its write later is
 * refused 503 rather than dropped with the connection.
 */
export function closingWriter(writer: DocumentWriter): ClosingWriter {
  let closing = false;
  const writing = new Set<Promise<unknown>>();
  return {
    write(collection, documents) {
      if (closing)
        return Promise.reject(
          new EngineUnavailableError(
            'The local server is stopping: this batch was not written. Send it again once the server runs.',
            5,
          ),
        );
      const written = writer.write(collection, documents);
      const settled: Promise<unknown> = written.then(
        () => writing.delete(settled),
        () => writing.delete(settled),
      );
      writing.add(settled);
      return written;
    },
    async close() {
      closing = true;
      await Promise.all(writing);
    },
  };
}
