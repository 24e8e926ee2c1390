import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { ROUTES } from '../../../functions/routes';
import { apiPathPatterns, Explorer } from '../../../lib/explorer';
import { CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from '../../../web/headers';
import { newOutdir, removeSynthOutputs, resourcesOf, synthService } from './synth';

afterAll(removeSynthOutputs);

// Managed CloudFront policies, by their documented ids
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/using-managed-cache-policies.html and
// .../using-managed-origin-request-policies.html).
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const CACHING_OPTIMIZED = '658327ea-f89d-4fab-a63d-7e88639e58f6';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

/** The API paths the page's CloudFront forwards, in the order of functions/routes.ts, written out by hand. */
const API_PATHS = [
  '/locations',
  '/locations/*',
  '/insights/overview',
  '/reports:query',
  '/ingest/*',
  '/ingest-clients',
  '/ingest-clients/*',
  '/webhook-endpoints',
  '/webhook-endpoints/*',
  '/alert-rules',
  '/alert-rules/*',
  '/health',
  '/problems',
];

describe('the API routes CloudFront forwards', () => {
  test('are each route path, or its part before the first parameter with a wildcard', () => {
    expect(apiPathPatterns([{ path: '/a' }, { path: '/a/{id}/b' }, { path: '/a/{id}/c' }, { path: '/r:q' }])).toEqual([
      '/a',
      '/a/*',
      '/r:q',
    ]);
    expect(apiPathPatterns(ROUTES)).toEqual(API_PATHS);
  });
});

describe('the report explorer in the service stack', () => {
  let template: Template;
  beforeAll(() => {
    ({ template } = synthService());
  });

  test('keeps the page in a private, encrypted bucket that only the distribution reads, through origin access control', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
    template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: Match.objectLike({
        OriginAccessControlOriginType: 's3',
        SigningBehavior: 'always',
        SigningProtocol: 'sigv4',
      }),
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 's3:GetObject',
            Effect: 'Allow',
            Principal: { Service: 'cloudfront.amazonaws.com' },
            Condition: Match.objectLike({ StringEquals: Match.anyValue() }),
          }),
        ]),
      },
    });
  });

  test('serves the page over HTTPS with the security headers of web/headers.ts, and forwards the API routes uncached with the token', () => {
    const [distribution] = Object.values(resourcesOf(template, 'AWS::CloudFront::Distribution'));
    const config = (distribution!.Properties as { DistributionConfig: Record<string, unknown> }).DistributionConfig;
    expect(config).toMatchObject({
      DefaultRootObject: 'index.html',
      HttpVersion: 'http2and3',
      DefaultCacheBehavior: {
        AllowedMethods: ['GET', 'HEAD'],
        CachePolicyId: CACHING_OPTIMIZED,
        ViewerProtocolPolicy: 'redirect-to-https',
      },
    });
    const behaviors = config.CacheBehaviors as Record<string, unknown>[];
    expect(behaviors.map((b) => b.PathPattern)).toEqual(API_PATHS);
    for (const behavior of behaviors) {
      expect(behavior).toMatchObject({
        AllowedMethods: expect.arrayContaining(['GET', 'POST', 'OPTIONS']),
        CachePolicyId: CACHING_DISABLED,
        OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
        ViewerProtocolPolicy: 'https-only',
      });
    }
    const apiOrigin = (config.Origins as { Id: string; DomainName: unknown; CustomOriginConfig?: unknown }[]).find(
      (o) => o.Id === behaviors[0]!.TargetOriginId,
    );
    expect(apiOrigin).toMatchObject({
      DomainName: {
        'Fn::Join': [
          '',
          [
            { Ref: expect.stringMatching(/^ApiHttpApi/) },
            '.execute-api.',
            { Ref: 'AWS::Region' },
            '.',
            { Ref: 'AWS::URLSuffix' },
          ],
        ],
      },
      CustomOriginConfig: {
        OriginProtocolPolicy: 'https-only',
        OriginReadTimeout: 30,
        OriginSSLProtocols: ['TLSv1.2'],
      },
    });
    template.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: {
          // web/headers.ts's policy, with the user pool's origins in connect-src (test/unit/infra/sign-in.test.ts).
          ContentSecurityPolicy: { ContentSecurityPolicy: Match.anyValue(), Override: true },
          ContentTypeOptions: { Override: true },
          FrameOptions: { FrameOption: SECURITY_HEADERS['x-frame-options'], Override: true },
          ReferrerPolicy: { ReferrerPolicy: SECURITY_HEADERS['referrer-policy'], Override: true },
          StrictTransportSecurity: { AccessControlMaxAgeSec: 31_536_000, IncludeSubdomains: true, Override: true },
        },
      }),
    });
    expect(CONTENT_SECURITY_POLICY).toContain("connect-src 'self'");
  });

  test('deploys the hashed assets for a year and then index.html to be revalidated, invalidating only the page', () => {
    // The page's own; the sign-in settings have theirs (test/unit/infra/sign-in.test.ts).
    const deployments = Object.values(resourcesOf(template, 'Custom::CDKBucketDeployment'))
      .map((r) => r as { Properties: Record<string, unknown>; DependsOn?: string[] })
      .filter((d) => JSON.stringify(d.Properties.DistributionPaths) !== '["/sign-in.json"]');
    expect(deployments.map((d) => d.Properties.SystemMetadata)).toEqual([
      { 'cache-control': 'public, max-age=31536000, immutable' },
      { 'cache-control': 'no-cache' },
    ]);
    const [assets, page] = deployments as [(typeof deployments)[0], (typeof deployments)[0]];
    expect(assets.Properties).toMatchObject({ Exclude: ['index.html'], Prune: false });
    expect(assets.Properties.DistributionPaths).toBeUndefined();
    expect(page.Properties).toMatchObject({
      Exclude: ['*'],
      Include: ['index.html'],
      Prune: false,
      DistributionPaths: ['/', '/index.html'],
    });
    expect(page.DependsOn).toEqual(expect.arrayContaining([expect.stringMatching(/^ExplorerAssetsCustomResource/)]));
  });

  test('names the page in the outputs', () => {
    template.hasOutput('ExplorerUrl', {
      Value: {
        'Fn::Join': [
          '',
          ['https://', { 'Fn::GetAtt': [Match.stringLikeRegexp('^ExplorerDistribution'), 'DomainName'] }, '/'],
        ],
      },
    });
  });
});

describe('the explorer asset', () => {
  test('is the page built during synth: index.html naming hashed assets that are all there', () => {
    // Prepare: a stack with the explorer alone, bundled as `cdk synth` bundles.
    const app = new App({ outdir: newOutdir() });
    const stack = new Stack(app, 'ExplorerOnly');
    new Explorer(stack, 'Explorer', { api: new HttpApi(stack, 'Api') });
    // Act
    const assembly = app.synth();
    // Assess
    const dirs = readdirSync(assembly.directory).filter(
      (d) => d.startsWith('asset.') && existsSync(join(assembly.directory, d, 'index.html')),
    );
    expect(dirs).toHaveLength(1);
    const dir = join(assembly.directory, dirs[0]!);
    const html = readFileSync(join(dir, 'index.html'), 'utf8');
    const named = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(named.map((n) => n.replace(/-[A-Z0-9]{8}\./, '-HASH.')).sort()).toEqual([
      'assets/explorer-HASH.css',
      'assets/explorer-HASH.js',
    ]);
    for (const file of named) expect(existsSync(join(dir, file))).toBe(true);
    expect(html).toContain('<meta name="lrs-token" content="">');
  });
});
