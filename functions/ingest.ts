import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2 } from 'aws-lambda';
import { answerIngest, collectionOf, type LineChecker } from '#shared/ingest/answer';
import type { ItemTable } from '#shared/locations/item-table';
import type { LocationStore } from '#shared/locations/store';
import type { DocumentWriter } from '#shared/stores/store';
import { documentWriter } from '#commons/clients/store';
import { lineChecker } from '#commons/clients/line-checker';
import { itemTable, locationStore } from '#commons/clients/dynamo';
import { idempotencyKeyOf, oncePerKey, REPLAYED_HEADER } from '#commons/idempotency/idempotency-key';
import type { Provider } from '#commons/clients/lazy';
import { httpEdge } from '#commons/http/edge';
import { clientIdOf, organizationOf } from '#commons/http/identity';
import { noteClientUse } from '#shared/ingest/machine-clients';
import { JSON_MEDIA_TYPES, jsonOnly } from '#commons/http/json-only';
import { ndjsonBody } from '#commons/http/ndjson-body';
import { metrics } from '#commons/powertools/metrics';

type Event = APIGatewayProxyEventV2WithJWTAuthorizer;

/** Who writes, where, and under which key: checked once per request, before the body is read. */
interface IngestRequest {
  readonly organizationId: string;
  readonly collection: ReturnType<typeof collectionOf>;
  readonly key: ReturnType<typeof idempotencyKeyOf>;
}

export interface IngestHandlerDeps {
  readonly writer: Provider<DocumentWriter>;
  readonly store: Provider<Pick<LocationStore, 'listLocations'>>;
  /** Where `Idempotency-Key`s and their answers are kept: the service's table. */
  readonly table: Provider<ItemTable>;
  /** Who reads the body's lines, if not the handler itself (#commons/clients/line-checker). */
  readonly check?: () => LineChecker | undefined;
}

/**
 * POST /ingest/{collection}: an NDJSON batch of documents (gzip allowed) for the caller's
 * organization, each line written exactly once; with an `Idempotency-Key`, the answer of the first
 * request with that key is given again. Who may write, which collection and the key's form are
 * checked before the body is read (403, 404, 400), the body's size and form before a line is parsed
 * (413, 415).
 */
export function createIngestHandler(
  deps: IngestHandlerDeps = { writer: documentWriter, store: locationStore, table: itemTable, check: lineChecker },
) {
  const checked = new WeakMap<Event, IngestRequest>();
  return middy<Event, APIGatewayProxyResultV2>()
    .use(httpEdge({ route: 'ingest', availableMediaTypes: JSON_MEDIA_TYPES }))
    .use(jsonOnly())
    .use({
      before: async ({ event }) => {
        const organizationId = organizationOf(event, 'ingest');
        const collection = collectionOf(event.pathParameters?.collection);
        checked.set(event, { organizationId, collection, key: idempotencyKeyOf(event.headers) });
      },
    })
    .use(ndjsonBody())
    .handler(async (event, context) => {
      const { organizationId, collection, key } = checked.get(event) as IngestRequest;
      const body = event.body ?? '';
      const work = async () => {
        const store = await deps.store();
        const check = deps.check?.();
        return answerIngest(body, collection, organizationId, {
          locationIds: async (org) => new Set((await store.listLocations(org)).map((l) => l.id)),
          writer: await deps.writer(),
          ...(check ? { check } : {}),
        });
      };
      const { answer: result, replayed } = key
        ? await oncePerKey(
            { key, organizationId, operation: `POST /ingest/${collection}`, body },
            await deps.table(),
            context,
            work,
          )
        : { answer: await work(), replayed: false };
      await noteUse(deps, organizationId, clientIdOf(event));
      if (!replayed) {
        metrics.addDimension('collection', collection);
        metrics.addMetric('IngestAccepted', MetricUnit.Count, result.accepted);
        metrics.addMetric('IngestDuplicates', MetricUnit.Count, result.duplicates);
        metrics.addMetric('IngestRejected', MetricUnit.Count, result.rejected.length);
      }
      return {
        statusCode: 200,
        headers: {
          'Content-Type': 'application/json',
          'Cache-Control': 'no-store',
          ...(replayed ? { [REPLAYED_HEADER]: 'true' } : {}),
        },
        body: JSON.stringify(result),
      };
    });
}

/** When each client's last use was noted by this process: at most once a minute per client. */
const notedAt = new Map<string, number>();
export const CLIENT_USE_EVERY_MS = 60_000;

/**
 * The client's last use (`GET /ingest-clients`), written at most once a minute; a failure to note it never fails the
 * batch.
 */
async function noteUse(deps: IngestHandlerDeps, organizationId: string, clientId: string | undefined): Promise<void> {
  if (!clientId) return;
  const now = Date.now();
  if (now - (notedAt.get(clientId) ?? -Infinity) < CLIENT_USE_EVERY_MS) return;
  notedAt.set(clientId, now);
  if (notedAt.size > 10_000) notedAt.delete(notedAt.keys().next().value as string);
  await noteClientUse(await deps.table(), organizationId, clientId, new Date(now)).catch(() =>
    notedAt.delete(clientId),
  );
}

export const handler = createIngestHandler();
