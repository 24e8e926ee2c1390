import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2 } from 'aws-lambda';
import { answerIngest, collectionOf } from '#shared/ingest/answer';
import type { LocationStore } from '#shared/locations/store';
import type { DocumentWriter } from '#shared/report/engines/document-writer';
import { documentWriter } from '#commons/clients/document-writer';
import { locationStore } from '#commons/clients/dynamo';
import type { Provider } from '#commons/clients/lazy';
import { httpEdge } from '#commons/http/edge';
import { organizationOf } from '#commons/http/identity';
import { JSON_MEDIA_TYPES, jsonOnly } from '#commons/http/json-only';
import { ndjsonBody } from '#commons/http/ndjson-body';
import { routeGuard } from '#commons/http/route-guard';
import { metrics } from '#commons/powertools/metrics';
import { ROUTES } from './routes';

type Event = APIGatewayProxyEventV2WithJWTAuthorizer;

export interface IngestHandlerDeps {
  readonly writer: Provider<DocumentWriter>;
  readonly store: Provider<Pick<LocationStore, 'listLocations'>>;
}

/**
 * POST /ingest/{collection}: an NDJSON batch of documents (gzip allowed) for the caller's
 * organization, each line written exactly once. Who may write and which collection are checked
 * before the body is read (403, 404), the body's size and form before a line is parsed (413, 415).
 */
export function createIngestHandler(deps: IngestHandlerDeps = { writer: documentWriter, store: locationStore }) {
  return middy<Event, APIGatewayProxyResultV2>()
    .use(httpEdge({ availableMediaTypes: JSON_MEDIA_TYPES }))
    .use(routeGuard(ROUTES.find((r) => r.handler === 'ingest')!))
    .use(jsonOnly())
    .use({
      before: async ({ event }) => {
        organizationOf(event, 'ingest');
        collectionOf(event.pathParameters?.collection);
      },
    })
    .use(ndjsonBody())
    .handler(async (event) => {
      const organizationId = organizationOf(event, 'ingest');
      const collection = collectionOf(event.pathParameters?.collection);
      const store = await deps.store();
      const result = await answerIngest(event.body ?? '', collection, organizationId, {
        locationIds: async (org) => new Set((await store.listLocations(org)).map((l) => l.id)),
        writer: await deps.writer(),
      });
      metrics.addDimension('collection', collection);
      metrics.addMetric('IngestAccepted', MetricUnit.Count, result.accepted);
      metrics.addMetric('IngestDuplicates', MetricUnit.Count, result.duplicates);
      metrics.addMetric('IngestRejected', MetricUnit.Count, result.rejected.length);
      return { statusCode: 200, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }, body: JSON.stringify(result) };
    });
}

export const handler = createIngestHandler();
