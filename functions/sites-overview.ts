import middy from '@middy/core';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2 } from 'aws-lambda';
import { ReportTimeoutError } from '#shared/errors';
import type { LocationStore } from '#shared/locations/store';
import { sitesOverview } from '#shared/occupancy/overview';
import { Deadline } from '#shared/report/deadline';
import type { ReportEngine } from '#shared/stores/store';
import { locationStore } from '#commons/clients/dynamo';
import { reportEngine } from '#commons/clients/store';
import type { Provider } from '#commons/clients/lazy';
import { conditionalGet } from '#commons/http/conditional-get';
import { httpEdge } from '#commons/http/edge';
import { accessOf } from '#commons/http/identity';
import { JSON_MEDIA_TYPES, jsonOnly } from '#commons/http/json-only';
import { measuredEngine } from '#commons/powertools/metrics';

/** What the answer needs once the engine is done (as the history's): the deadline leaves it. */
const RESPONSE_MARGIN_MS = 2_000;

export interface SitesOverviewDeps {
  readonly store: Provider<Pick<LocationStore, 'listLocations' | 'getLiveView'>>;
  readonly engine: Provider<ReportEngine>;
  /** @default Date.now */
  readonly now?: () => number;
}

/** GET /insights/overview: every location at a glance (people now, today so far beside a week before). */
export function createSitesOverviewHandler(deps: SitesOverviewDeps = { store: locationStore, engine: reportEngine }) {
  return middy<APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2>({
    timeoutEarlyResponse: () => {
      throw new ReportTimeoutError();
    },
  })
    .use(httpEdge({ route: 'sites-overview', availableMediaTypes: JSON_MEDIA_TYPES }))
    .use(conditionalGet())
    .use(jsonOnly())
    .handler(async (event, context) => {
      const deadline = Deadline.after(context.getRemainingTimeInMillis() - RESPONSE_MARGIN_MS);
      const [store, engine] = await Promise.all([deps.store(), deps.engine()]);
      const now = (deps.now ?? Date.now)();
      const { body, maxAgeSeconds } = await sitesOverview(
        { store, engine: measuredEngine(engine) },
        scopeOf(event),
        now,
        { deadline },
      );
      return {
        statusCode: 200,
        // Kept until the next occupancy refresh has written, as the live answer.
        headers: { 'Content-Type': 'application/json', 'Cache-Control': `private, max-age=${maxAgeSeconds}` },
        body: JSON.stringify(body),
      };
    });
}

/** The caller's organization and location grant: the overview shows the granted locations only. */
function scopeOf(event: APIGatewayProxyEventV2WithJWTAuthorizer) {
  const { organizationId, locationIds } = accessOf(event);
  return { organizationId, ...(locationIds ? { locationIds } : {}) };
}

export const handler = createSitesOverviewHandler();
