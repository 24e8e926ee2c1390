/**
 * The bounds of one ingest request (`POST /ingest/{collection}`), checked before any line is read.
 *
 * - {@link MAX_LINES} documents and {@link MAX_DECODED_BYTES} of NDJSON: one request is one `_bulk`
 *   of the size Amazon OpenSearch Service recommends starting from (3–5 MiB,
 *   https://docs.aws.amazon.com/opensearch-service/latest/developerguide/bp.html#bp-perf), and
 *   its documents are held in memory once while they are validated.
 * - {@link MAX_SENT_BYTES} as sent: API Gateway hands an HTTP API function the body of any
 *   request that is not `text/*`, JSON, XML or JavaScript base64-encoded (NDJSON and gzip are
 *   among them; verified against AWS in ministackorg/ministack#766, which AWS's payload 2.0 docs
 *   leave unlisted), and a synchronous Lambda request is at most 6 MB with its headers: 4 MiB
 *   becomes 5.33 MiB of base64, which leaves room for the rest of the event. Compressed
 *   (`Content-Encoding: gzip`) a request carries the full 5 MiB of NDJSON in far less.
 */
export const MAX_LINES = 10_000;
export const MAX_DECODED_BYTES = 5 * 1024 * 1024;
export const MAX_SENT_BYTES = 4 * 1024 * 1024;

/** The media type of an ingest body: newline-delimited JSON, one document per line. */
export const NDJSON_MEDIA_TYPE = 'application/x-ndjson';
