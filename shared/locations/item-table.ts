import { type Item, revisionOf } from './items';

/**
 * A write condition the store needs: the item's `attribute` is absent (or the item is) or at most
 * `atMost` (strings compared as DynamoDB compares them, by code unit: ISO 8601 UTC timestamps sort
 * as their instants). Occupancy writes use it so that an older refresh never replaces a newer one.
 */
export interface NotNewerThan {
  readonly attribute: string;
  readonly atMost: string;
}

/**
 * A write condition for records that a writer claims for a while (idempotency records of the ingest
 * API): the item is absent, or has expired (`expiresAt`, epoch seconds, before `nowMs`), or is
 * `INPROGRESS` and its claim has run out (`inProgressExpiresAt`, epoch ms, before `nowMs`).
 * The condition Powertools' DynamoDB persistence layer writes its records with.
 */
export interface Claimable {
  readonly claimableAt: number;
}

/** Names of the attributes {@link Claimable} reads. */
export const CLAIM_ATTRIBUTES = {
  status: 'status',
  expiresAt: 'expiresAt',
  inProgressExpiresAt: 'inProgressExpiresAt',
  inProgress: 'INPROGRESS',
} as const;

export type WriteCondition = NotNewerThan | Claimable;

/** Whether `condition` holds for the stored item (undefined: absent), as DynamoDB evaluates its expression. */
export function conditionHolds(
  stored: Record<string, unknown> | undefined,
  condition: WriteCondition | undefined,
): boolean {
  if (!condition) return true;
  if ('claimableAt' in condition) {
    if (!stored) return true;
    const { status, expiresAt, inProgressExpiresAt, inProgress } = CLAIM_ATTRIBUTES;
    const expiry = stored[expiresAt];
    const claim = stored[inProgressExpiresAt];
    if (typeof expiry === 'number' && expiry * 1000 < condition.claimableAt) return true;
    return stored[status] === inProgress && typeof claim === 'number' && claim < condition.claimableAt;
  }
  const value = stored?.[condition.attribute];
  return (
    value === undefined ||
    (typeof value === 'string' && Buffer.compare(Buffer.from(value), Buffer.from(condition.atMost)) <= 0)
  );
}

/** The keys of one item. */
export interface ItemKey {
  readonly PK: string;
  readonly SK: string;
}

/**
 * A condition of one action of a transaction: no item has these keys (`absent`), or the item exists
 * and its `revision` attribute is `revision` (0: the item has none, as locations written before
 * revisions were kept).
 */
export type TransactCondition = { readonly kind: 'absent' } | { readonly kind: 'revision'; readonly revision: number };

/** One action of a transaction: write an item, delete one, or only check a condition on one. */
export type TransactAction =
  | { readonly put: Item; readonly condition?: TransactCondition }
  | { readonly delete: ItemKey; readonly condition?: TransactCondition }
  | { readonly check: ItemKey; readonly condition: TransactCondition };

/** The most actions one transaction may have (DynamoDB's TransactWriteItems limit). */
export const MAX_TRANSACT_ACTIONS = 100;

/**
 * A transaction was not written because a condition did not hold (`index`: the action whose
 * condition failed, -1 when another transaction on the same items was under way). Nothing of it
 * was written.
 */
export class TransactionConflictError extends Error {
  constructor(readonly index: number) {
    super(
      index < 0 ? 'a concurrent transaction wrote the same items' : `the condition of action ${index} did not hold`,
    );
    this.name = 'TransactionConflictError';
  }
}

/** Whether a transaction's condition holds for the stored item (undefined: absent). */
export function transactConditionHolds(
  stored: Record<string, unknown> | undefined,
  condition: TransactCondition | undefined,
): boolean {
  if (!condition) return true;
  if (condition.kind === 'absent') return stored === undefined;
  return stored !== undefined && revisionOf(stored) === condition.revision;
}

/** The keys an action writes or checks. */
export const keyOf = (action: TransactAction): ItemKey =>
  'put' in action ? action.put : 'delete' in action ? action.delete : action.check;

/** A page of a partition read in sort key order, or newest (largest key) first. */
export interface PageOptions {
  /** Only items whose sort key is below this one (the next page of a descending read). */
  readonly before?: string;
  /** @default false: ascending */
  readonly descending?: boolean;
  readonly limit: number;
}

/**
 * The few operations of one DynamoDB table that the location store uses (./table-store.ts), so that
 * the store's logic has one home over two tables: DynamoDB itself (./dynamo-store.ts, also DynamoDB
 * Local) and the local server's embedded table (bin/local/file-table.ts).
 */
export interface ItemTable {
  /** The item with these keys, if any. */
  get(pk: string, sk: string): Promise<Item | undefined>;
  /** Every item of the partition (whose SK starts with `skPrefix`, when given), in SK order. */
  query(pk: string, skPrefix?: string): Promise<Item[]>;
  /** Every item of the table, in no particular order. */
  scan(): Promise<Item[]>;
  /** Writes the item (replacing one with its keys); false when `condition` did not hold (nothing written). */
  put(item: Item, condition?: WriteCondition): Promise<boolean>;
  /** Deletes the item (no error when absent); false when `condition` did not hold (nothing deleted). */
  delete(pk: string, sk: string, condition?: NotNewerThan): Promise<boolean>;
  /**
   * Writes every action or none (DynamoDB's TransactWriteItems, at most {@link MAX_TRANSACT_ACTIONS},
   * each item once): TransactionConflictError when a condition does not hold.
   */
  transact(actions: readonly TransactAction[]): Promise<void>;
  /** Up to `limit` items of the partition, in sort key order (or the reverse), below `before` when given. */
  page(pk: string, options: PageOptions): Promise<Item[]>;
}
