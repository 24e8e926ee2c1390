import type { AggNode, FilterNode, ReportPlan } from '../../../../report/plan/plan';
import { columnOf, PARENT_COPIES } from '../../layout/schema';
import { scopeFilterFields } from './compile-scope';
import type { CompileOptions } from './compiler';

/**
 * Whether the grouped compilation applies: at most one `nested` stage (so at most one
 * `reverseNested`, after it, and the pipeline reads documents, then items, then documents again).
 * Not stats after `reverseNested` either, which no collection has a field for today (a root number
 * field of a collection with nested items).
 */
export const groupable = (plan: ReportPlan): boolean => {
  const { pipeline } = plan;
  const reverseThenStats = pipeline.some((n) => n.kind === 'reverseNested') && pipeline.at(-1)?.kind === 'stats';
  return pipeline.filter((n) => n.kind === 'nested').length <= 1 && !reverseThenStats;
};

/**
 * Whether the grouped compilation reads the items of a nested report without their documents:
 * the scope's filters and the stages on the documents (before `nested`, after `reverseNested`)
 * read only root fields the items carry a copy of (schema.ts). Such a report needs the scope
 * numbers (CompileOptions.scopeNumbers).
 */
export function readsItemsAlone(plan: ReportPlan, options: Pick<CompileOptions, 'stageByStage'> = {}): boolean {
  const m = plan.pipeline.findIndex((n) => n.kind === 'nested');
  if (options.stageByStage || m < 0 || !groupable(plan)) return false;
  const r = plan.pipeline.findIndex((n) => n.kind === 'reverseNested');
  const onDocuments = plan.pipeline.filter((_, i) => i < m || (r >= 0 && i > r));
  return [...scopeFilterFields(plan), ...onDocuments.flatMap(rootFieldsOf)].every((f) => PARENT_COPIES.includes(f));
}

/** The root columns a stage on the documents reads. */
function rootFieldsOf(node: AggNode): string[] {
  const filterFields = (f: FilterNode) => [columnOf(f.field)];
  switch (node.kind) {
    case 'dateHistogram':
      return ['timestamp'];
    case 'terms':
    case 'stats':
      return [columnOf(node.field)];
    case 'filter':
      return filterFields(node.filter);
    case 'filters':
      return node.buckets.flatMap((b) => filterFields(b.filter));
    case 'nested':
    case 'reverseNested':
      return [];
  }
}
