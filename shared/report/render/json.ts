import { Pacer } from '../pace';
import type { ReportModel } from '../shape/comparison';
import type { HistogramRow } from '../shape/model';

/**
 * Spec shapes 1 and 2 as JSON: timestamps as ISO 8601 UTC with milliseconds. A comparison
 * (`compare`) pairs them: `[{ "current": row, "previous": row }, …]` for a histogram (either left
 * out when that period has no partner bucket), `{ "current": {…}, "previous": {…} }` otherwise.
 * Series names are data (terms keys), so rows are built as own properties of null-prototype
 * objects: a key `__proto__` stays a property instead of setting the prototype through the
 * assignment setter and vanishing.
 */
export async function renderJson(model: ReportModel, pacer = new Pacer()): Promise<string> {
  switch (model.kind) {
    case 'object':
      return JSON.stringify(Object.fromEntries(model.entries));
    case 'objectComparison':
      return JSON.stringify({
        current: Object.fromEntries(model.current),
        previous: Object.fromEntries(model.previous),
      });
    case 'histogram':
      return jsonArray(model.rows, toRow, pacer);
    case 'histogramComparison':
      return jsonArray(
        model.rows,
        (r) => ({
          ...(r.current ? { current: toRow(r.current) } : {}),
          ...(r.previous ? { previous: toRow(r.previous) } : {}),
        }),
        pacer,
      );
  }
}

/** In chunks of rows, in the pacer's turns: the array's text is the chunks' texts joined. */
async function jsonArray<T>(rows: readonly T[], toJson: (row: T) => unknown, pacer: Pacer): Promise<string> {
  const chunks = await pacer.chunks(rows, (chunk) => JSON.stringify(chunk.map(toJson)).slice(1, -1));
  return `[${chunks.join(',')}]`;
}

function toRow(r: HistogramRow): Record<string, string | number> {
  const row: Record<string, string | number> = Object.create(null) as Record<string, string | number>;
  row.timestamp = new Date(r.timestamp).toISOString();
  for (const [name, value] of r.values) if (name !== 'timestamp') row[name] = value;
  return row;
}
