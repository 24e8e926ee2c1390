import { nestedPathsOf, type Collection, type NestedPath } from '../../../documents/fields';
import {
  CONTENT,
  DOC_ID,
  ITEM,
  itemsColumn,
  KEY,
  nestedColumns,
  parentCopyColumns,
  PARENT_ID,
  ROW_ID,
  rootColumns,
  SCOPE,
  SHARD,
  TABLES,
  type ColumnDef,
} from './schema';

/** Column layout of a collection's tables, computed once. */
export interface TablePlan {
  readonly root: readonly ColumnDef[];
  /** Root columns read from the document, by index: all but row_id, doc_id, _shard and the item counts. */
  readonly rootFields: readonly { readonly index: number; readonly name: string }[];
  readonly children: readonly ChildPlan[];
}

export interface ChildPlan {
  readonly path: NestedPath;
  readonly table: string;
  readonly columns: readonly ColumnDef[];
  /** The root column of the document's item count. */
  readonly countIndex: number;
  /** The child column of the item's position. */
  readonly itemIndex: number;
  /** The child column of the parent's scope number. */
  readonly scopeIndex: number;
  /** Copies of the parent's root columns (the shard included), by child column index. */
  readonly copies: readonly { readonly index: number; readonly name: string }[];
  /** The item's own fields, by child column index. */
  readonly fields: readonly { readonly index: number; readonly name: string }[];
}

function childPlan(collection: Collection, path: NestedPath, table: string): ChildPlan {
  const columns = nestedColumns(collection, path);
  const copied = new Set(parentCopyColumns(collection).map((c) => c.name));
  const indexed = columns
    .map((c, index) => ({ index, name: c.name }))
    .filter((c) => c.name !== PARENT_ID && c.name !== ITEM && c.name !== SCOPE);
  return {
    path,
    table,
    columns,
    countIndex: rootColumns(collection).findIndex((c) => c.name === itemsColumn(path)),
    itemIndex: columns.findIndex((c) => c.name === ITEM),
    scopeIndex: columns.findIndex((c) => c.name === SCOPE),
    copies: indexed.filter((c) => copied.has(c.name)),
    fields: indexed.filter((c) => !copied.has(c.name)),
  };
}

const plans = new Map<Collection, TablePlan>();

export function tablePlan(collection: Collection): TablePlan {
  let plan = plans.get(collection);
  if (!plan) {
    const root = rootColumns(collection);
    const generated = new Set([ROW_ID, DOC_ID, SHARD, KEY, CONTENT, ...nestedPathsOf(collection).map(itemsColumn)]);
    plan = {
      root,
      rootFields: root.flatMap((c, index) => (generated.has(c.name) ? [] : [{ index, name: c.name }])),
      children: (Object.entries(TABLES[collection].nested) as [NestedPath, string][]).map(([path, table]) =>
        childPlan(collection, path, table),
      ),
    };
    plans.set(collection, plan);
  }
  return plan;
}
