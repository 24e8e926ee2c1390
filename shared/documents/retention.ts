/**
 * Retention by calendar month: which months of documents are kept, given now and a retention of
 * `months`. A month is written as the number YYYYMM (UTC), as a monthly index name says it
 * (`movement-events-2024.05`, stores/opensearch/layout/indices.ts) and as DuckDB's `_shard` column holds it
 * (stores/duckdb/layout/schema.ts). Deciding by the month a document belongs to, never by when an
 * index was created, keeps a backfilled old month as old as its data.
 */

/**
 * The retention the stack and the CLIs use when none is given: the current month and the 25 before
 * it, so that a report comparing a whole month with the same month a year earlier, or a year with the
 * year before, always finds both. 0 means keep everything.
 */
export const DEFAULT_RETENTION_MONTHS = 25;

/** The most months a retention may say (100 years): a larger number is a typo, not a policy. */
export const MAX_RETENTION_MONTHS = 1200;

/** YYYYMM of the UTC month `offset` months after the one holding `timestampMs` (negative: before). */
export function monthOf(timestampMs: number, offset = 0): number {
  const d = new Date(timestampMs);
  const index = d.getUTCFullYear() * 12 + d.getUTCMonth() + offset;
  return Math.floor(index / 12) * 100 + (index % 12) + 1;
}

/**
 * The oldest month kept with a retention of `months` at `nowMs`: the current month and the `months`
 * before it are kept, so with 25 in November 2026 that is October 2024. Undefined for 0 (keep all).
 */
export function firstKeptMonth(nowMs: number, months: number): number | undefined {
  if (!Number.isInteger(months) || months < 0 || months > MAX_RETENTION_MONTHS) {
    throw new RangeError(
      `the retention must be a whole number of months from 0 to ${MAX_RETENTION_MONTHS}, got ${months}`,
    );
  }
  return months === 0 ? undefined : monthOf(nowMs, -months);
}

/** Whether the month (YYYYMM) has expired with a retention of `months` at `nowMs`. */
export function isExpired(month: number, nowMs: number, months: number): boolean {
  const first = firstKeptMonth(nowMs, months);
  return first !== undefined && month < first;
}

/** YYYYMM as `YYYY.MM`, the way index names and reports of a retention run write it. */
export const formatMonth = (month: number): string =>
  `${Math.floor(month / 100)}.${String(month % 100).padStart(2, '0')}`;
