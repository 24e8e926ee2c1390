import { BasePersistenceLayer, IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import { IdempotencyItemAlreadyExistsError, IdempotencyItemNotFoundError } from '@aws-lambda-powertools/idempotency';
import type { IdempotencyRecordStatusValue } from '@aws-lambda-powertools/idempotency/types';
import { CLAIM_ATTRIBUTES, type ItemTable } from '#shared/locations/item-table';
import type { Item } from '#shared/locations/items';

const SORT_KEY = 'IDEMPOTENCY';
const partition = (idempotencyKey: string) => `IDEMPOTENCY#${idempotencyKey}`;

/**
 * Powertools' idempotency records in the service's one table, through the same table operations as
 * the location store (shared/locations/item-table.ts): DynamoDB in AWS, the local server's embedded
 * table locally, one logic for both. A record is claimed with the condition Powertools' own DynamoDB
 * layer uses (absent, expired, or an in-progress claim that ran out), and expires with the table's
 * TTL attribute `expiresAt`. Each record has a partition of its own (the key's hash), so no
 * partition is hot however many requests carry keys. A record carries the organization whose
 * request it answers (the key is a hash, which names none), so that erasing an organization
 * (shared/erasure/) finds its records; records written before it did expire within a day anyway.
 */
export class TablePersistenceLayer extends BasePersistenceLayer {
  constructor(
    private readonly table: ItemTable,
    private readonly organizationId: string,
  ) {
    super();
  }

  protected async _getRecord(idempotencyKey: string): Promise<IdempotencyRecord> {
    const item = await this.table.get(partition(idempotencyKey), SORT_KEY);
    if (!item) throw new IdempotencyItemNotFoundError();
    return toRecord(item);
  }

  protected async _putRecord(record: IdempotencyRecord): Promise<void> {
    if (!(await this.table.put(toItem(record, this.organizationId), { claimableAt: Date.now() }))) {
      throw new IdempotencyItemAlreadyExistsError(
        `Failed to put record for already existing idempotency key: ${record.idempotencyKey}`,
      );
    }
  }

  protected async _updateRecord(record: IdempotencyRecord): Promise<void> {
    await this.table.put(toItem(record, this.organizationId));
  }

  protected async _deleteRecord(record: IdempotencyRecord): Promise<void> {
    await this.table.delete(partition(record.idempotencyKey), SORT_KEY);
  }
}

function toItem(record: IdempotencyRecord, organizationId: string): Item {
  const { status, expiresAt, inProgressExpiresAt } = CLAIM_ATTRIBUTES;
  return {
    PK: partition(record.idempotencyKey),
    SK: SORT_KEY,
    kind: 'idempotency',
    idempotencyKey: record.idempotencyKey,
    organizationId,
    [status]: record.getStatus(),
    ...(record.expiryTimestamp === undefined ? {} : { [expiresAt]: record.expiryTimestamp }),
    ...(record.inProgressExpiryTimestamp === undefined
      ? {}
      : { [inProgressExpiresAt]: record.inProgressExpiryTimestamp }),
    ...(record.payloadHash === undefined ? {} : { payloadHash: record.payloadHash }),
    ...(record.responseData === undefined ? {} : { responseData: record.responseData }),
  };
}

function toRecord(item: Item): IdempotencyRecord {
  const { status, expiresAt, inProgressExpiresAt } = CLAIM_ATTRIBUTES;
  return new IdempotencyRecord({
    idempotencyKey: item.idempotencyKey as string,
    status: item[status] as IdempotencyRecordStatusValue,
    expiryTimestamp: item[expiresAt] as number | undefined,
    inProgressExpiryTimestamp: item[inProgressExpiresAt] as number | undefined,
    responseData: item.responseData as never,
    payloadHash: item.payloadHash as string | undefined,
  });
}
