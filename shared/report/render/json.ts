import { Pacer } from '../pace';
import type { HistogramModel, ReportModel } from '../shape/model';

/**
 * Spec shapes 1 and 2 as JSON: timestamps as ISO 8601 UTC with milliseconds. Series names are data
 * (terms keys), so rows are built as own properties of null-prototype objects: a key `__proto__`
 * stays a property instead of setting the prototype through the assignment setter and vanishing.
 */
export async function renderJson(model: ReportModel, pacer = new Pacer()): Promise<string> {
  if (model.kind === 'object') return JSON.stringify(Object.fromEntries(model.entries));
  // In chunks of rows, in the pacer's turns: the array's text is the chunks' texts joined.
  const chunks = await pacer.chunks(model.rows, (rows) => JSON.stringify(rows.map(toRow)).slice(1, -1));
  return `[${chunks.join(',')}]`;
}

function toRow(r: HistogramModel['rows'][number]): Record<string, string | number> {
  const row: Record<string, string | number> = Object.create(null) as Record<string, string | number>;
  row.timestamp = new Date(r.timestamp).toISOString();
  for (const [name, value] of r.values) if (name !== 'timestamp') row[name] = value;
  return row;
}
