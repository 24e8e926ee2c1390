import { parse as parseContentType } from 'content-type';

/**
 * Why a body with this Content-Type is not `mediaType` text we read, or undefined when it is: the
 * media type in any case (media types are case-insensitive, RFC 9110 8.3.1), with any parameters,
 * but a `charset` only of UTF-8 (JSON between systems is UTF-8, RFC 8259 8.1; so is NDJSON). Parsed
 * by the `content-type` package (RFC 9110 syntax, quoted parameter values included). `name` is how
 * the message calls the text (JSON, NDJSON). The one check of the JSON and NDJSON bodies.
 */
export function unsupportedContentType(
  header: string | undefined,
  mediaType: string,
  name: string,
): string | undefined {
  if (header === undefined || header.trim() === '') return 'the request has no Content-Type';
  let parsed: ReturnType<typeof parseContentType>;
  try {
    parsed = parseContentType(header);
  } catch {
    return `Content-Type "${clip(header)}" is not a media type`;
  }
  if (parsed.type !== mediaType) return `Content-Type ${parsed.type} is not supported`;
  const charset = parsed.parameters.charset;
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8')
    return `charset ${clip(charset)} is not supported (${name} is UTF-8)`;
  return undefined;
}

/** A header value cut to 64 characters for a message. */
export const clip = (text: string): string => (text.length > 64 ? `${text.slice(0, 64)}…` : text);
