import {
  type CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
  DeleteUserPoolClientCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-cognito-identity-provider';
import type { ClientIssuer } from '#shared/ingest/machine-clients';
import { INGEST_SCOPE } from '../http/identity';

/** A machine client's access token lives an hour: a revoked client's last token is refused by the authorizer anyway. */
export const ACCESS_TOKEN_MINUTES = 60;

/**
 * Machine clients as Cognito app clients of the user pool: the client-credentials grant, the ingest
 * scope, a generated secret, hour-long access tokens. Used by `POST /ingest-clients`
 * (functions/manage-ingest-clients.ts) and `npm run ingest-client` (bin/ingest-client.ts) alike.
 */
export function cognitoIssuer(
  cognito: CognitoIdentityProviderClient,
  userPoolId: string,
  tokenUrl: string,
): ClientIssuer {
  return {
    tokenUrl,
    async create(name) {
      const { UserPoolClient: client } = await cognito.send(
        new CreateUserPoolClientCommand({
          UserPoolId: userPoolId,
          ClientName: name,
          GenerateSecret: true,
          AllowedOAuthFlowsUserPoolClient: true,
          AllowedOAuthFlows: ['client_credentials'],
          AllowedOAuthScopes: [INGEST_SCOPE],
          ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
          AccessTokenValidity: ACCESS_TOKEN_MINUTES,
          TokenValidityUnits: { AccessToken: 'minutes' },
          EnableTokenRevocation: true,
          PreventUserExistenceErrors: 'ENABLED',
        }),
      );
      if (!client?.ClientId || !client.ClientSecret) throw new Error('Cognito created no client id or secret');
      return { clientId: client.ClientId, clientSecret: client.ClientSecret };
    },
    async remove(clientId) {
      try {
        await cognito.send(new DeleteUserPoolClientCommand({ UserPoolId: userPoolId, ClientId: clientId }));
      } catch (e) {
        // Gone already: revoke and erase-organization run again.
        if (!(e instanceof ResourceNotFoundException)) throw e;
      }
    },
  };
}
