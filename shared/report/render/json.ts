import type { ReportModel } from '../shape/model';

/**
 * Spec shapes 1 and 2 as JSON: timestamps as ISO 8601 UTC with milliseconds. Series names are data
 * (terms keys), so rows are built as own properties of null-prototype objects: a key `__proto__`
 * stays a property instead of setting the prototype through the assignment setter and vanishing.
 */
export function renderJson(model: ReportModel): string {
  if (model.kind === 'object') return JSON.stringify(Object.fromEntries(model.entries));
  return JSON.stringify(
    model.rows.map((r) => {
      const row: Record<string, string | number> = Object.create(null) as Record<string, string | number>;
      row.timestamp = new Date(r.timestamp).toISOString();
      for (const [name, value] of r.values) if (name !== 'timestamp') row[name] = value;
      return row;
    }),
  );
}
