import type { DocumentWriter } from '#shared/stores/write';
import { lazy } from './lazy';

/** The OpenSearch writer of this process, built once on first use from the environment (./opensearch-writer). */
const openSearchWriter = lazy(async (): Promise<DocumentWriter> => (await import('./opensearch-writer')).openSearchWriterFromEnv(process.env));

let provided: Promise<DocumentWriter> | undefined;

/**
 * Puts a ready writer in place of the one built from the environment: the local server provides its
 * embedded DuckDB's writer this way (the one process that writes the file), as it provides its engine.
 */
export function provideDocumentWriter(writer: DocumentWriter): void {
  provided = Promise.resolve(writer);
}

/** The document writer of this process: the provided one, else OpenSearch from the environment (built once). */
export function documentWriter(): Promise<DocumentWriter> {
  return provided ?? openSearchWriter();
}
