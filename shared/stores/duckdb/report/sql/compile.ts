import type { Scope } from '../../../store';
import type { ReportPlan } from '../../../../report/plan/plan';
import { compileScope } from './compile-scope';
import type { CompileOptions } from './compiler';
import { groupable, GroupedCompiler } from './grouped';
import { SqlParams, type SqlQuery } from './sql-params';
import { PipelineCompiler } from './stage-by-stage';

export type { CompileOptions } from './compiler';
export { groupable, readsItemsAlone } from './grouped';

/**
 * Plan → one SQL statement. Pure. The statement returns, as one UNION ALL, the rows of
 * ../result-row.ts, all per shard; read.ts merges the shards as OpenSearch does.
 *
 * - dateHistogram adds the bucket key (see histogram-sql.ts); terms adds the field value (rows
 *   without one drop out) and keeps the `termsCap` smallest keys per parent bucket; filters adds the
 *   bucket index, a row once per matching bucket; filter keeps matching rows;
 * - nested goes on with the items of the path (only those matching the path's nestedFilters);
 *   reverseNested keeps each (bucket, parent document) once and goes on with the parent;
 * - stats aggregates the field over the rows: count, min, max and a Kahan sum in document order,
 *   per "shard" (the UTC month of the document, i.e. its monthly OpenSearch index), because
 *   OpenSearch sums per shard and then adds the shard sums in index order (InternalStats.reduce):
 *   read.ts does that last step, so that sums agree with OpenSearch to the last bit.
 *
 * Two compilations give the same rows:
 *
 * - grouped (grouped.ts), for every pipeline with at most one `nested` stage: the documents (and
 *   the items) are grouped once by every key of every stage, a list of the matching buckets for
 *   each `filters` stage, each filter condition and the shard, and the stages work on those groups,
 *   a few thousand rows instead of millions: a report costs one pass over the rows it reads,
 *   whatever the product of its bucket counts (issue 12: `[filters(10)] × 3` cost documents × 1000).
 * - stage by stage (stage-by-stage.ts), for the rest (a second `nested` after `reverseNested`), and
 *   in tests: each stage a CTE `s<i+1>` of the rows in that stage's context (documents, or items
 *   after `nested`) with the keys so far as columns `k0, k1, ...`; a row is one document (or item)
 *   in one bucket, so its cost is the rows times the buckets each falls in. Such reports are
 *   bounded by the engine's memory limit and the report's deadline.
 */
export function compileReport(plan: ReportPlan, scope: Scope, options: CompileOptions): SqlQuery {
  const params = new SqlParams();
  const sql =
    (options.rollup !== undefined || !options.stageByStage) && groupable(plan)
      ? new GroupedCompiler(plan, params, options).compile(scope)
      : new PipelineCompiler(plan, params, options).compile(compileScope(plan, scope, params));
  return { sql, params: params.values };
}
