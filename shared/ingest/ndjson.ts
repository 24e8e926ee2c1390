import { PayloadTooLargeError } from '../errors';
import { MAX_LINES } from './limits';

/** One line of an NDJSON body that holds a document: its number (1-based, as an editor counts) and text. */
export interface NdjsonLine {
  readonly line: number;
  readonly text: string;
}

/**
 * The lines of an NDJSON body that hold something (blank lines are skipped but counted, so numbers
 * stay those of the file), `\n` or `\r\n` ended. More than `maxLines` such lines is a 413 before any
 * line is parsed.
 */
export function ndjsonLines(body: string, maxLines = MAX_LINES): NdjsonLine[] {
  const lines: NdjsonLine[] = [];
  let start = 0;
  let number = 0;
  while (start <= body.length) {
    let end = body.indexOf('\n', start);
    if (end === -1) end = body.length;
    number++;
    const text = body.slice(start, end > start && body.charCodeAt(end - 1) === 13 ? end - 1 : end);
    if (text.trim() !== '') {
      if (lines.length === maxLines)
        throw new PayloadTooLargeError(
          maxLines,
          `A request may carry at most ${maxLines.toLocaleString('en-US')} documents (lines); send the rest in another request.`,
        );
      lines.push({ line: number, text });
    }
    start = end + 1;
  }
  return lines;
}
