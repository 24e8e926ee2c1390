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
  put(item: Item, condition?: NotNewerThan): Promise<boolean>;
  /** Deletes the item (no error when absent); false when `condition` did not hold (nothing deleted). */
  delete(pk: string, sk: string, condition?: NotNewerThan): Promise<boolean>;
}
