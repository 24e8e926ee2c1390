import type { SourceFacts } from '#shared/report/answer-source';
import type { ReportAnswer } from '#shared/report/query-report';

/**
 * The HTTP headers of a report's answer, from its facts: the media type (with CSV's charset),
 * `Cache-Control: no-store` (an organization's data, asked with a token, as of the moment it was
 * asked: no cache, private or shared, should keep it), `Vary: Accept` (the body depends on it), `X-Report-Truncated:
 * true` when a terms stage kept only its top keys, RFC 9745's `Deprecation: @<epoch seconds>` when the request used a
 * deprecated field, and `Server-Timing` saying which rows answered and, when not rollups, why (docs/rollups.md).
 */
export function reportHeaders(answer: ReportAnswer): Record<string, string> {
  return {
    'Content-Type': answer.mediaType === 'text/csv' ? 'text/csv; charset=utf-8' : 'application/json',
    'Cache-Control': 'no-store',
    Vary: 'Accept',
    ...(answer.truncated ? { 'X-Report-Truncated': 'true' } : {}),
    ...(answer.deprecatedSince !== undefined ? { Deprecation: `@${answer.deprecatedSince}` } : {}),
    ...(answer.source ? { 'Server-Timing': serverTiming(answer) } : {}),
  };
}

/**
 * The W3C Server Timing entries of an answer's source (https://www.w3.org/TR/server-timing/):
 * `source;desc="rollup"|"raw"|"mixed"`, then `raw-reason;desc="…"` (why rollups did not answer, all
 * of it or some slices) or `rollup-window;desc="<from>/<to>"` (the ISO 8601 interval read from
 * rollup rows; the rest of the range was read raw). Browsers show them in their network panel.
 */
export function serverTiming(facts: SourceFacts): string {
  const entries = [`source;desc=${quoted(facts.source ?? '')}`];
  if (facts.rawReason !== undefined) entries.push(`raw-reason;desc=${quoted(facts.rawReason)}`);
  const w = facts.rollupWindow;
  if (w) entries.push(`rollup-window;desc=${quoted(`${iso(w.from)}/${iso(w.to)}`)}`);
  return entries.join(', ');
}

/** An RFC 9110 quoted-string: `"` and `\` escaped; anything not printable ASCII (never in a reason today) as `?`. */
const quoted = (text: string): string => `"${text.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, (c) => `\\${c}`)}"`;

const iso = (ms: number): string => new Date(ms).toISOString();
