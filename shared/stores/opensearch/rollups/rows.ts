import type { Client } from '@opensearch-project/opensearch';
import { nestedPathsOf, type Collection, type FieldDef, type NestedPath } from '../../../documents/fields';
import { EXACT_LIMIT } from '../../../rollups/read';
import { indexPattern } from '../layout/indices';
import { dimensionsOf, ITEM_COUNT, measureField, numbersOf, rollupRowId } from '../layout/rollup-indices';
import { AGGREGATIONS_ONLY, NO_HITS, timeBuckets } from './time-buckets';

/**
 * The rollup rows of the grains in [from, to), computed from the raw documents with one composite
 * aggregation over the collection's monthly indices (docs/rollups.md, "On OpenSearch"), page by page:
 * a row per (grain, root dimensions), its nested items grouped by the item dimensions under it.
 */

/** Per document (or item): 1 when a value is not an exact integer (EXACT_LIMIT: such sums read raw). */
export const ODD_SCRIPT = `if (doc[params.f].size() == 0) { return 0; } double v = doc[params.f].value; return (v != Math.floor(v) || Math.abs(v) >= ${EXACT_LIMIT}.0) ? 1 : 0;`;
/** Per document (or item): the magnitude of a value (their sum bounds every partial sum). */
export const ABS_SCRIPT = 'doc[params.f].size() == 0 ? 0 : Math.abs(doc[params.f].value)';

/** Item groups under one row and item dimension, at most: a row with more fails its rebuild rather than lose some. */
const ITEM_GROUPS = 10_000;

type Agg = Record<string, unknown>;
type Row = Record<string, unknown>;

const script = (source: string, f: FieldDef) => ({ script: { lang: 'painless', source, params: { f: f.name } } });

/** The measures of number fields, as aggregations: stats, and the exactness sums. */
function measureAggs(fields: readonly FieldDef[]): Record<string, Agg> {
  return Object.fromEntries(
    fields.flatMap((f) => [
      [f.name, { stats: { field: f.name } }],
      [measureField(f, 'odd'), { sum: script(ODD_SCRIPT, f) }],
      [measureField(f, 'abs'), { sum: script(ABS_SCRIPT, f) }],
    ]),
  );
}

/** Nested terms, one level per item dimension, the item measures under the last. */
function itemAggs(c: Collection, path: NestedPath): Agg {
  const dims = dimensionsOf(c, path);
  let inner: Record<string, Agg> = measureAggs(numbersOf(c, path));
  for (let i = dims.length - 1; i >= 0; i--) {
    inner = { [`k${i}`]: { terms: { field: dims[i], size: ITEM_GROUPS, order: { _key: 'asc' } }, aggs: inner } };
  }
  return { nested: { path }, aggs: inner };
}

/** The composite aggregation of one page of rows. */
export function rowsRequest(c: Collection, grainMs: number, size: number, after?: Record<string, unknown>): Agg {
  const sources = [
    { g: { date_histogram: { field: 'timestamp', fixed_interval: `${grainMs}ms` } } },
    ...dimensionsOf(c).map((d, i) => ({ [`d${i}`]: { terms: { field: d, missing_bucket: i > 0 } } })),
  ];
  const aggs = {
    ...measureAggs(numbersOf(c)),
    ...Object.fromEntries(nestedPathsOf(c).map((p) => [p, itemAggs(c, p)])),
  };
  return { composite: { size, sources, ...(after ? { after } : {}) }, aggs };
}

interface RawBucket {
  key: Record<string, string | number | null> | string | number;
  doc_count: number;
  [name: string]: unknown;
}

interface Stats {
  count: number;
  min: number | null;
  max: number | null;
  sum: number;
}

/** The measure fields of one group (`name` without its path for items). */
function measures(fields: readonly FieldDef[], bucket: RawBucket, leafName: (name: string) => string): Row {
  const out: Row = {};
  for (const f of fields) {
    const s = bucket[f.name] as Stats;
    const value = (name: string) => (bucket[name] as { value: number }).value;
    out[leafName(measureField(f, 'n'))] = s.count;
    if (s.count > 0) {
      out[leafName(measureField(f, 'min'))] = s.min;
      out[leafName(measureField(f, 'max'))] = s.max;
    }
    out[leafName(measureField(f, 'sum'))] = s.sum;
    out[leafName(measureField(f, 'odd'))] = value(measureField(f, 'odd'));
    out[leafName(measureField(f, 'abs'))] = value(measureField(f, 'abs'));
  }
  return out;
}

/** The nested items of a row: one per leaf of the terms levels. */
function items(c: Collection, path: NestedPath, nested: Record<string, unknown>): Row[] {
  const dims = dimensionsOf(c, path);
  const leafName = (name: string) => name.slice(path.length + 1);
  const out: Row[] = [];
  const walk = (level: Record<string, unknown>, depth: number, keys: Row) => {
    const terms = level[`k${depth}`] as { buckets: RawBucket[]; sum_other_doc_count: number };
    if (terms.sum_other_doc_count > 0)
      throw new Error(`more than ${ITEM_GROUPS} ${path} groups in one rollup row: not rolled up`);
    for (const b of terms.buckets) {
      const here = { ...keys, [leafName(dims[depth] as string)]: b.key };
      if (depth + 1 < dims.length) walk(b, depth + 1, here);
      else out.push({ ...here, [ITEM_COUNT]: b.doc_count, ...measures(numbersOf(c, path), b, leafName) });
    }
  };
  walk(nested, 0, {});
  return out;
}

/** One composite bucket → its rollup row (`_id` and source). */
export function rowOf(c: Collection, bucket: RawBucket): { id: string; source: Row } {
  const key = bucket.key as Record<string, string | number | null>;
  const dims = dimensionsOf(c);
  const values = dims.map((_, i) => key[`d${i}`] as string | null);
  const source: Row = { timestamp: key.g, _doc_count: bucket.doc_count };
  dims.forEach((d, i) => {
    if (values[i] !== null) source[d] = values[i];
  });
  Object.assign(
    source,
    measures(numbersOf(c), bucket, (n) => n),
  );
  for (const path of nestedPathsOf(c)) {
    const list = items(c, path, bucket[path] as Record<string, unknown>);
    if (list.length > 0) source[path] = list;
  }
  return { id: rollupRowId(key.g as number, values), source };
}

/** OpenSearch refused a page for its bucket count: a smaller page is tried. */
const tooManyBuckets = (e: unknown): boolean =>
  /too_many_buckets/.test(JSON.stringify((e as { meta?: { body?: unknown } }).meta?.body ?? String(e)));

/**
 * The rows of the grains in [from, to), a page at a time (at most `pageSize` rows; a page refused for
 * its bucket count is asked again with half as many). The raw indices must be refreshed before.
 */
export async function* computeRows(
  client: Client,
  prefix: string,
  c: Collection,
  range: { from: number; to: number },
  grainMs: number,
  pageSize: number,
): AsyncGenerator<{ id: string; source: Row }[]> {
  let after: Record<string, unknown> | undefined;
  let size = pageSize;
  for (;;) {
    let response: { body: unknown };
    try {
      response = await client.search({
        index: indexPattern(prefix, c),
        ...AGGREGATIONS_ONLY,
        body: {
          ...NO_HITS,
          query: { range: { timestamp: { gte: range.from, lt: range.to, format: 'epoch_millis' } } },
          aggs: { rows: rowsRequest(c, grainMs, size, after) },
        } as never,
      });
    } catch (e) {
      if (size > 1 && tooManyBuckets(e)) {
        size = Math.max(1, Math.floor(size / 2));
        continue;
      }
      throw e;
    }
    const rows = (
      response.body as { aggregations?: { rows: { buckets: RawBucket[]; after_key?: Record<string, unknown> } } }
    ).aggregations?.rows;
    if (!rows || rows.buckets.length === 0) return;
    yield rows.buckets.map((b) => rowOf(c, b));
    if (!rows.after_key) return;
    after = rows.after_key;
  }
}

/**
 * [from, to) slices of `range`, each at most `maxDocs` documents (so at most that many rows) or one
 * `sliceMs` of them (a multiple of the rows' grain), empty stretches skipped: the documents' slices
 * are counted first (timeBuckets), a pass over their times alone.
 */
export async function* slicesOf(
  client: Client,
  prefix: string,
  c: Collection,
  range: { from: number; to: number },
  sliceMs: number,
  maxDocs: number,
): AsyncGenerator<{ from: number; to: number }> {
  let current: { from: number; to: number; docs: number } | undefined;
  const query = { range: { timestamp: { gte: range.from, lt: range.to, format: 'epoch_millis' } } };
  for await (const page of timeBuckets(client, indexPattern(prefix, c), query, sliceMs)) {
    for (const { start, docs } of page) {
      const from = Math.max(range.from, start);
      const to = Math.min(range.to, start + sliceMs);
      // Slices apart join too: the documents between them are none.
      if (current && current.docs + docs <= maxDocs) Object.assign(current, { to, docs: current.docs + docs });
      else {
        if (current) yield { from: current.from, to: current.to };
        current = { from, to, docs };
      }
    }
  }
  if (current) yield { from: current.from, to: current.to };
}
