import type { ClientIssuer } from '#shared/ingest/machine-clients';
import { ENV } from '../env';
import { lazy } from './lazy';

/** The Cognito issuer of the stack's user pool (USER_POOL_ID, TOKEN_URL), built on first use. */
const cognitoFromEnv = lazy(async (): Promise<ClientIssuer> => {
  const userPoolId = process.env[ENV.userPoolId];
  const tokenUrl = process.env[ENV.tokenUrl];
  if (!userPoolId || !tokenUrl) throw new Error(`${ENV.userPoolId} and ${ENV.tokenUrl} must be set`);
  const [{ CognitoIdentityProviderClient }, { cognitoIssuer }] = await Promise.all([
    import('@aws-sdk/client-cognito-identity-provider'),
    import('./cognito-issuer'),
  ]);
  return cognitoIssuer(new CognitoIdentityProviderClient({}), userPoolId, tokenUrl);
});

let provided: ClientIssuer | undefined;

/** Puts the local server's issuer in place of Cognito's (bin/local-server.ts). */
export function provideClientIssuer(issuer: ClientIssuer): void {
  provided = issuer;
}

/** The process's issuer of machine-client credentials. */
export const clientIssuer = async (): Promise<ClientIssuer> => provided ?? cognitoFromEnv();
