import middy from '@middy/core';
import type { PreTokenGenerationV3TriggerEvent } from 'aws-lambda';
import type { ItemTable } from '#shared/locations/item-table';
import { organizationOfClient, UnknownMachineClientError } from '#shared/ingest/machine-clients';
import { itemTable } from '#commons/clients/dynamo';
import type { Provider } from '#commons/clients/lazy';
import { organizationClaim } from '#commons/http/identity';
import { logger } from '#commons/powertools/logger';
import { observability } from '#commons/powertools/observability';

/** The V3_0 event of any trigger source: users' sign-ins come too, with other `triggerSource`s. */
type Event = Omit<PreTokenGenerationV3TriggerEvent, 'triggerSource'> & { triggerSource: string };

export interface PreTokenGenerationDeps {
  readonly table: Provider<Pick<ItemTable, 'get'>>;
}

/**
 * Cognito's pre-token-generation trigger (event V3_0, the one that sees client-credentials grants):
 * a machine client's access token gets the organization claim the service reads
 * (ORGANIZATION_CLAIM, functions/commons/http/identity.ts) from the client's item in the table
 * (shared/ingest/machine-clients.ts). A client that is not registered, or was revoked, gets no token:
 * the trigger throws, and Cognito answers the token request with an error. Users' sign-ins pass
 * unchanged: their ID token carries the organization as a user attribute.
 */
export function createPreTokenGenerationHandler(deps: PreTokenGenerationDeps = { table: itemTable }) {
  return middy<Event, Event>()
    .use(observability())
    .handler(async (event) => {
      if (event.triggerSource !== 'TokenGeneration_ClientCredentials') return event;
      const clientId = event.callerContext.clientId;
      try {
        const organizationId = await organizationOfClient(await deps.table(), clientId);
        event.response.claimsAndScopeOverrideDetails = {
          accessTokenGeneration: { claimsToAddOrOverride: { [organizationClaim()]: organizationId } },
        };
        logger.info('machine client token', { clientId, organizationId });
        return event;
      } catch (e) {
        if (e instanceof UnknownMachineClientError) logger.warn('token refused', { clientId, reason: e.reason });
        throw e;
      }
    });
}

export const handler = createPreTokenGenerationHandler();
