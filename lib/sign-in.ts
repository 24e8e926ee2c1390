import { Duration, Stack } from 'aws-cdk-lib';
import {
  CfnManagedLoginBranding,
  OAuthScope,
  type UserPool,
  type UserPoolClient,
  UserPoolClientIdentityProvider,
  type UserPoolDomain,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { userReadAttributes, userWriteAttributes } from './api';
import type { SignInConfig } from '../web/src/model/sign-in-config';

export interface ExplorerSignInProps {
  readonly userPool: UserPool;
  /** The pool's domain, with managed login (lib/machine-clients.ts): the sign-in pages and the token endpoint. */
  readonly domain: UserPoolDomain;
  /** The explorer's address (`https://<distribution>/`): its callback and sign-out URL. */
  readonly explorerUrl: string;
  /**
   * How long a signed-in explorer may renew its ID token without the password: also how long a
   * refresh token taken from a browser stays good (it is revoked at sign-out).
   * @default Duration.hours(12), a working day
   */
  readonly refreshTokenValidity?: Duration;
}

/**
 * The explorer's sign-in with the stack's user pool: a public app client (no secret) for the
 * authorization code flow, whose only callback and sign-out URL is the explorer's own address, the
 * managed login style of that client (Cognito's defaults; the newer managed login shows a client
 * without one an error page), and the settings the page reads from `/sign-in.json`
 * (web/src/model/sign-in-config.ts). The explorer always sends PKCE (S256); Cognito accepts it from
 * any client but cannot be told to require it.
 */
export class ExplorerSignIn extends Construct {
  public readonly client: UserPoolClient;
  public readonly branding: CfnManagedLoginBranding;
  /** What the explorer reads: the pool as issuer, this client, the scopes, Cognito's logout endpoint. */
  public readonly config: SignInConfig;

  constructor(scope: Construct, id: string, props: ExplorerSignInProps) {
    super(scope, id);
    const scopes = [OAuthScope.OPENID, OAuthScope.EMAIL];
    this.client = props.userPool.addClient('ExplorerClient', {
      userPoolClientName: 'report-explorer',
      generateSecret: false,
      // No password flow: people sign in on the managed login pages; the page only renews its tokens.
      authFlows: { userSrp: false },
      oAuth: {
        flows: { authorizationCodeGrant: true, implicitCodeGrant: false, clientCredentials: false },
        scopes,
        callbackUrls: [props.explorerUrl],
        logoutUrls: [props.explorerUrl],
      },
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: props.refreshTokenValidity ?? Duration.hours(12),
      readAttributes: userReadAttributes(),
      writeAttributes: userWriteAttributes(),
    });
    this.branding = new CfnManagedLoginBranding(this, 'Branding', {
      userPoolId: props.userPool.userPoolId,
      clientId: this.client.userPoolClientId,
      useCognitoProvidedValues: true,
    });
    this.config = {
      // As API Gateway's user pool authorizer states the issuer (aws-apigatewayv2-authorizers), so the
      // page checks the ID token against the very `iss` the API checks.
      issuer: `${cognitoIdpOrigin(this)}/${props.userPool.userPoolId}`,
      clientId: this.client.userPoolClientId,
      scope: scopes.map((s) => s.scopeName).join(' '),
      logoutEndpoint: `${props.domain.baseUrl()}/logout`,
    };
  }
}

/**
 * The origins the explorer's page calls to sign in, for its CSP's connect-src: the pool's issuer
 * (discovery) and its domain (token and revocation endpoints).
 */
export function signInConnectSources(scope: Construct, domain: UserPoolDomain): string[] {
  return [cognitoIdpOrigin(scope), domain.baseUrl()];
}

function cognitoIdpOrigin(scope: Construct): string {
  const stack = Stack.of(scope);
  return `https://cognito-idp.${stack.region}.${stack.urlSuffix}`;
}
