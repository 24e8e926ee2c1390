import type { ReportModel } from '../shape/model';

/** Spec shapes 1 and 2 as JSON: timestamps as ISO 8601 UTC with milliseconds. */
export function renderJson(model: ReportModel): string {
  if (model.kind === 'object') return JSON.stringify(Object.fromEntries(model.entries));
  return JSON.stringify(
    model.rows.map((r) => {
      const row: Record<string, string | number> = { timestamp: new Date(r.timestamp).toISOString() };
      for (const [name, value] of r.values) if (name !== 'timestamp') row[name] = value;
      return row;
    }),
  );
}
