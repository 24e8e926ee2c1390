import { closeSync, createReadStream, openSync, readSync, type ReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { createGunzip, gzip as gzipCallback } from 'node:zlib';
import { MAX_DECODED_BYTES, MAX_LINES, MAX_SENT_BYTES } from '#shared/ingest/limits';

const gzip = promisify(gzipCallback);

/** One request's worth of a file: its body (NDJSON, gzip-compressed) and the file line of each of its lines. */
export interface Batch {
  /** `fileLines[k - 1]` is the file's line number of the batch's line k (as the server numbers them). */
  readonly fileLines: readonly number[];
  readonly body: Buffer;
}

/** A line that cannot be sent at all (longer than a whole request may be decoded). */
export interface UnsendableLine {
  readonly line: number;
  readonly message: string;
}

export interface BatchLimits {
  readonly maxLines: number;
  readonly maxDecodedBytes: number;
  readonly maxSentBytes: number;
}

/** The server's own bounds (shared/ingest/limits.ts): every batch is one request it accepts. */
export const REQUEST_LIMITS: BatchLimits = {
  maxLines: MAX_LINES,
  maxDecodedBytes: MAX_DECODED_BYTES,
  maxSentBytes: MAX_SENT_BYTES,
};

/** The file as a byte stream and its decoded text: gzip when it starts with gzip's magic bytes, whatever its name. */
export function openNdjson(file: string): { raw: ReadStream; text: Readable } {
  const raw = createReadStream(file);
  return { raw, text: isGzip(file) ? raw.pipe(createGunzip()) : raw };
}

function isGzip(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/**
 * Cuts an NDJSON stream into batches of at most `maxLines` lines and `maxDecodedBytes` of text, each
 * gzip-compressed; a batch that compresses to more than `maxSentBytes` (text that hardly compresses)
 * is halved until it fits. Blank lines are skipped but counted, so line numbers stay the file's.
 * Reads only as fast as batches are taken: memory holds one batch being cut, whatever the file's size.
 */
export async function* ndjsonBatches(
  text: Readable,
  limits: BatchLimits = REQUEST_LIMITS,
  unsendable: (line: UnsendableLine) => void = () => undefined,
): AsyncGenerator<Batch> {
  let lines: string[] = [];
  let fileLines: number[] = [];
  let bytes = 0;
  let number = 0;
  for await (const line of createInterface({ input: text, crlfDelay: Infinity })) {
    number++;
    if (line.trim() === '') continue;
    const size = Buffer.byteLength(line) + 1;
    if (size > limits.maxDecodedBytes) {
      unsendable({
        line: number,
        message: `the line is ${size} bytes; a request may carry at most ${limits.maxDecodedBytes} bytes of NDJSON`,
      });
      continue;
    }
    if (lines.length === limits.maxLines || bytes + size > limits.maxDecodedBytes) {
      yield* compressed(lines, fileLines, limits.maxSentBytes);
      lines = [];
      fileLines = [];
      bytes = 0;
    }
    lines.push(line);
    fileLines.push(number);
    bytes += size;
  }
  if (lines.length > 0) yield* compressed(lines, fileLines, limits.maxSentBytes);
}

async function* compressed(
  lines: readonly string[],
  fileLines: readonly number[],
  maxSentBytes: number,
): AsyncGenerator<Batch> {
  const body = await gzip(`${lines.join('\n')}\n`);
  if (body.length <= maxSentBytes || lines.length === 1) {
    yield { fileLines, body };
    return;
  }
  const half = Math.ceil(lines.length / 2);
  yield* compressed(lines.slice(0, half), fileLines.slice(0, half), maxSentBytes);
  yield* compressed(lines.slice(half), fileLines.slice(half), maxSentBytes);
}
