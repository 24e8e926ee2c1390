import type { Item } from './items';

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
export const CLAIM_ATTRIBUTES = { status: 'status', expiresAt: 'expiresAt', inProgressExpiresAt: 'inProgressExpiresAt', inProgress: 'INPROGRESS' } as const;

export type WriteCondition = NotNewerThan | Claimable;

/** Whether `condition` holds for the stored item (undefined: absent), as DynamoDB evaluates its expression. */
export function conditionHolds(stored: Record<string, unknown> | undefined, condition: WriteCondition | undefined): boolean {
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
  return value === undefined || (typeof value === 'string' && Buffer.compare(Buffer.from(value), Buffer.from(condition.atMost)) <= 0);
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
}
