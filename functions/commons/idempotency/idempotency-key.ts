import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import type { Context } from 'aws-lambda';
import { AppError, EngineUnavailableError, ValidationError } from '#shared/errors';
import type { ItemTable } from '#shared/locations/item-table';
import { TablePersistenceLayer } from './table-persistence';

/**
 * How long a key and its answer are kept: a day, as Stripe keeps them
 * (https://docs.stripe.com/api/idempotent_requests).
 */
export const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 3600;

/**
 * The answer header that says an answer is the stored one of an earlier request with the same key (as Stripe names it).
 */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * The `Idempotency-Key` of a request: a string of 1 to 255 visible ASCII characters, quoted as the
 * IETF draft writes it (an sf-string, draft-ietf-httpapi-idempotency-key-header §2) or bare as Stripe's
 * clients send it; undefined when absent; 400 naming the header otherwise.
 */
export function idempotencyKeyOf(
  headers: Readonly<Record<string, string | undefined>> | undefined,
): string | undefined {
  const raw = headers?.['idempotency-key'];
  if (raw === undefined) return undefined;
  const key = /^"(.*)"$/.exec(raw.trim())?.[1] ?? raw.trim();
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new ValidationError([
      { path: '/headers/idempotency-key', message: 'must be 1 to 255 visible ASCII characters (a UUID, say)' },
    ]);
  }
  return key;
}

/** 422: the key was used for another body within the day (draft-ietf-httpapi-idempotency-key-header §2.7). */
export class IdempotencyKeyReusedError extends AppError {
  constructor() {
    super(
      422,
      'idempotency-key-reused',
      'Idempotency-Key reused',
      'This Idempotency-Key was used for a request with another body in the last 24 hours; use a new key for a new body.',
    );
  }
}

/** 409: a request with the same key is still being answered (draft §2.7); try again when it is done. */
export class IdempotencyKeyInUseError extends AppError {
  constructor() {
    super(
      409,
      'idempotency-key-in-use',
      'Request in progress',
      'A request with this Idempotency-Key is still being answered; send it again in a moment to get its answer.',
      {
        headers: { 'Retry-After': '1' },
      },
    );
  }
}

/**
 * Who a key belongs to and what it was used for: the organization and route scope the key, the body's digest is
 * checked.
 */
export interface KeyedRequest {
  readonly key: string;
  readonly organizationId: string;
  /** The route and its parameters, e.g. `POST /ingest/movementEvents`. */
  readonly operation: string;
  /** The decoded body: the same key with another body is a 422. */
  readonly body: string;
}

/**
 * Runs `work` once per key: the first request with a key runs it and its answer is kept for a day
 * (Powertools for AWS Lambda's idempotency utility, on the service's table); a later request with
 * the same key and body gets that answer back (`replayed`), with another body a 422, while the first
 * is still running a 409. A key is scoped by organization and operation, so one tenant's key never
 * replays another's answer. Answers are kept gzipped: a batch's rejected lines can be long, and a
 * DynamoDB item holds at most 400 KB. When `work` fails the key is released, and the request may be
 * sent again with it.
 */
export async function oncePerKey<T>(
  request: KeyedRequest,
  table: ItemTable,
  context: Context,
  work: () => Promise<T>,
): Promise<{ answer: T; replayed: boolean }> {
  const persistenceStore = new TablePersistenceLayer(table, request.organizationId);
  const config = new IdempotencyConfig({
    eventKeyJmesPath: '[organizationId, operation, key]',
    payloadValidationJmesPath: 'bodyDigest',
    expiresAfterSeconds: IDEMPOTENCY_KEY_TTL_SECONDS,
    responseHook: (response) => ({ ...(response as object), replayed: true }),
  });
  config.registerLambdaContext(context);
  const payload = {
    organizationId: request.organizationId,
    operation: request.operation,
    key: request.key,
    bodyDigest: createHash('sha256').update(request.body).digest('base64'),
  };
  const run = makeIdempotent(
    async (_: typeof payload) => ({ gz: gzipSync(JSON.stringify(await work())).toString('base64') }),
    { persistenceStore, config },
  );
  let stored: { gz: string; replayed?: boolean };
  try {
    stored = (await run(payload)) as { gz: string; replayed?: boolean };
  } catch (e) {
    throw mapIdempotencyError(e);
  }
  return {
    answer: JSON.parse(gunzipSync(Buffer.from(stored.gz, 'base64')).toString('utf8')) as T,
    replayed: stored.replayed === true,
  };
}

function mapIdempotencyError(e: unknown): unknown {
  if (e instanceof AppError || !(e instanceof Error)) return e;
  switch (e.name) {
    case 'IdempotencyValidationError':
      return new IdempotencyKeyReusedError();
    case 'IdempotencyAlreadyInProgressError':
    case 'IdempotencyInconsistentStateError':
      return new IdempotencyKeyInUseError();
    case 'IdempotencyPersistenceLayerError':
      return new EngineUnavailableError(
        'The store of idempotency keys is unavailable; send the request again shortly.',
        5,
        { cause: e },
      );
    default:
      return e;
  }
}
