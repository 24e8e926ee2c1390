import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Api } from '../../../lib/api';
import { contentSecurityPolicy } from '../../../web/headers';
import { removeSynthOutputs, render, resourcesOf, synthService } from './synth';

afterAll(removeSynthOutputs);

type Json = Record<string, unknown>;
const props = (r: Json | undefined): Json => (r?.Properties ?? {}) as Json;
const only = (template: Template, type: string, where: (p: Json) => boolean = () => true): [string, Json] => {
  const found = Object.entries(resourcesOf(template, type)).filter(([, r]) => where(props(r)));
  expect(found).toHaveLength(1);
  return [found[0]![0], props(found[0]![1])];
};

describe('the explorer’s sign-in with the stack’s user pool', () => {
  let template: Template;
  let outdir: string;
  let clientId: string;
  let distributionId: string;
  beforeAll(() => {
    ({ template, outdir } = synthService());
    [clientId] = only(template, 'AWS::Cognito::UserPoolClient', (p) => p.ClientName === 'report-explorer');
    [distributionId] = only(template, 'AWS::CloudFront::Distribution');
  });

  test('has a public app client for the authorization code flow alone, whose callback and sign-out URL is the explorer’s address', () => {
    const explorerUrl = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/']] };
    const [, client] = only(template, 'AWS::Cognito::UserPoolClient', (p) => p.ClientName === 'report-explorer');
    expect(client).toEqual({
      ClientName: 'report-explorer',
      UserPoolId: { Ref: expect.stringMatching(/^ApiUserPool/) },
      GenerateSecret: false,
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthScopes: ['openid', 'email'],
      CallbackURLs: [explorerUrl],
      LogoutURLs: [explorerUrl],
      SupportedIdentityProviders: ['COGNITO'],
      // No password flow of its own: only the renewal of tokens the code flow gave.
      ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
      EnableTokenRevocation: true,
      PreventUserExistenceErrors: 'ENABLED',
      IdTokenValidity: 60,
      AccessTokenValidity: 60,
      RefreshTokenValidity: 720,
      TokenValidityUnits: { IdToken: 'minutes', AccessToken: 'minutes', RefreshToken: 'minutes' },
      ReadAttributes: ['custom:locations', 'custom:organizationId', 'email', 'email_verified'],
      WriteAttributes: ['email'],
    });
  });

  test('the API’s authorizer takes that client’s ID tokens besides the first client’s', () => {
    const [, authorizer] = only(template, 'AWS::ApiGatewayV2::Authorizer', (p) => p.AuthorizerType === 'JWT');
    expect((authorizer.JwtConfiguration as Json).Audience).toEqual([
      { Ref: expect.stringMatching(/^ApiUserPoolClient/) },
      { Ref: clientId },
    ]);
  });

  test('the first client no longer offers OAuth flows (its https://example.com default callback is gone)', () => {
    const [, first] = only(
      template,
      'AWS::Cognito::UserPoolClient',
      (p) => p.ClientName === undefined && p.GenerateSecret === false,
    );
    expect(first).not.toHaveProperty('AllowedOAuthFlows');
    expect(first).not.toHaveProperty('CallbackURLs');
  });

  test('signs in on the pool’s domain with the newer managed login, the client styled with Cognito’s defaults', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolDomain', { ManagedLoginVersion: 2 });
    template.hasResourceProperties('AWS::Cognito::ManagedLoginBranding', {
      ClientId: { Ref: clientId },
      UseCognitoProvidedValues: true,
      UserPoolId: { Ref: Match.stringLikeRegexp('^ApiUserPool') },
    });
  });

  test('writes /sign-in.json next to the page at deploy time: the pool as issuer, the client, the scopes, the logout endpoint', () => {
    const [, deployment] = only(
      template,
      'Custom::CDKBucketDeployment',
      (p) => JSON.stringify(p.DistributionPaths) === '["/sign-in.json"]',
    );
    expect(deployment).toMatchObject({ Prune: false, SystemMetadata: { 'cache-control': 'no-cache' } });
    const asset = (deployment.SourceObjectKeys as string[])[0]!;
    const markers = deployment.SourceMarkers as Json[];
    const zipDir = readFileSync(join(outdir, `asset.${asset.replace(/\.zip$/, '')}`, 'sign-in.json'), 'utf8');
    const resolved = Object.entries(markers[0]!).reduce(
      (text, [marker, value]) => text.split(marker).join(render(value)),
      zipDir,
    );
    const [poolId] = only(template, 'AWS::Cognito::UserPool');
    const [domainId] = only(template, 'AWS::Cognito::UserPoolDomain');
    expect(JSON.parse(resolved)).toEqual({
      issuer: `https://cognito-idp.AWS::Region.AWS::URLSuffix/${poolId}`,
      clientId,
      scope: 'openid email',
      logoutEndpoint: `https://${domainId}.auth.AWS::Region.amazoncognito.com/logout`,
    });
  });

  test('lets the page call the pool’s issuer and domain, nothing else (CSP connect-src)', () => {
    const [, policy] = only(template, 'AWS::CloudFront::ResponseHeadersPolicy');
    const [domainId] = only(template, 'AWS::Cognito::UserPoolDomain');
    const csp = render(
      (
        (policy.ResponseHeadersPolicyConfig as Json).SecurityHeadersConfig as {
          ContentSecurityPolicy: { ContentSecurityPolicy: unknown };
        }
      ).ContentSecurityPolicy.ContentSecurityPolicy,
    );
    expect(csp).toBe(
      contentSecurityPolicy([
        'https://cognito-idp.AWS::Region.AWS::URLSuffix',
        `https://${domainId}.auth.AWS::Region.amazoncognito.com`,
      ]),
    );
  });

  test('with an external issuer there is no explorer client, no settings file, and the page connects to its own origin only', () => {
    const { template: external } = synthService({
      context: { jwtIssuer: 'https://login.example.com/', jwtAudience: 'api-a' },
    });
    external.resourceCountIs('AWS::Cognito::UserPoolClient', 0);
    expect(
      Object.values(resourcesOf(external, 'Custom::CDKBucketDeployment')).map((r) => props(r).DistributionPaths),
    ).not.toContainEqual(['/sign-in.json']);
    external.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: { ContentSecurityPolicy: contentSecurityPolicy(), Override: true },
        }),
      }),
    });
  });
});

describe('Api.trustClient', () => {
  test('refuses a client once a route has bound the authorizer, whose audience is then fixed', () => {
    const stack = new Stack(new App(), 'Trust');
    const api = new Api(stack, 'Api');
    const fn = new LambdaFunction(stack, 'Fn', {
      runtime: Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: Code.fromInline('exports.handler = async () => ({})'),
    });
    api.trustClient(api.userPool!.addClient('Early'));
    api.addRoute(HttpMethod.GET, '/a', fn, 'A');
    expect(() => api.trustClient(api.userPool!.addClient('Late'))).toThrow('call it before adding routes');
  });
});
