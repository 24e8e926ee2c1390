import type { ReportAnswer } from '#shared/report/query-report';

/**
 * The HTTP headers of a report's answer, from its facts: the media type (with CSV's charset), `Vary:
 * Accept` (the body depends on it), `X-Report-Truncated: true` when a terms stage kept only its top
 * keys, RFC 9745's `Deprecation: @<epoch seconds>` when the request used a deprecated field, and
 * `Server-Timing: source;desc="rollup"` (or `"raw"`) saying which rows answered (docs/rollups.md).
 */
export function reportHeaders(answer: ReportAnswer): Record<string, string> {
  return {
    'Content-Type': answer.mediaType === 'text/csv' ? 'text/csv; charset=utf-8' : 'application/json',
    Vary: 'Accept',
    ...(answer.truncated ? { 'X-Report-Truncated': 'true' } : {}),
    ...(answer.deprecatedSince !== undefined ? { Deprecation: `@${answer.deprecatedSince}` } : {}),
    ...(answer.source ? { 'Server-Timing': `source;desc="${answer.source}"` } : {}),
  };
}
