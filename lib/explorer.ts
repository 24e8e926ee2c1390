import { join } from 'node:path';
import { AssetHashType, CfnResource, DockerImage, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  type BehaviorOptions,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { ROUTES, type Route } from '../functions/routes';
import { logicalIdOf } from './service-function';
import { writeExplorer } from '../web/build';
import { ASSET_CACHE_CONTROL, contentSecurityPolicy, PAGE_CACHE_CONTROL } from '../web/headers';
import { SIGN_IN_CONFIG_PATH, type SignInConfig } from '../web/src/model/sign-in-config';

export interface ExplorerProps {
  /** The HTTP API the page calls; CloudFront forwards the API's routes to it, so page and API share one origin. */
  readonly api: IHttpApi;
  /**
   * What happens to the bucket of the page when the stack deletes it (the page is rebuilt at every synth).
   * @default RemovalPolicy.DESTROY
   */
  readonly removalPolicy?: RemovalPolicy;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** @default PriceClass.PRICE_CLASS_100 (North America and Europe edges; the API stays in its region anyway) */
  readonly priceClass?: PriceClass;
  /** Origins the page may call besides its own: its identity provider's (lib/sign-in.ts). @default none */
  readonly connectSources?: readonly string[];
}

/**
 * CloudFront path patterns for the API's routes: a route's path as is, or up to its first path
 * parameter followed by `*` (`/locations/{locationId}/insights/live` → `/locations/*`).
 */
export function apiPathPatterns(routes: readonly Pick<Route, 'path'>[] = ROUTES): string[] {
  return [...new Set(routes.map(({ path }) => (path.includes('{') ? `${path.slice(0, path.indexOf('{'))}*` : path)))];
}

/**
 * The report explorer (web/) in AWS: the built page in a private S3 bucket read by CloudFront through
 * origin access control, and the API's routes forwarded by the same distribution to the HTTP API
 * (not cached, every viewer header but Host passed on, the bearer token included), so the page calls
 * its own origin exactly as it does on the local server: no CORS, and no configuration but the sign-in
 * settings (`/sign-in.json`, {@link Explorer.publishSignIn}).
 * The page is built with esbuild during synth (web/build.ts); index.html is always revalidated and the
 * hashed assets are cached for a year.
 */
export class Explorer extends Construct {
  public readonly bucket: Bucket;
  public readonly distribution: Distribution;
  /** The page: `index.html`, deployed after the assets it names. */
  public readonly page: BucketDeployment;
  public readonly assets: BucketDeployment;
  /** `/sign-in.json`, once {@link publishSignIn} wrote it. */
  public signInSettings?: BucketDeployment;
  private readonly deploymentLogs: LogGroup;

  constructor(scope: Construct, id: string, props: ExplorerProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.DESTROY;

    this.bucket = new Bucket(this, 'Site', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy,
      autoDeleteObjects: removalPolicy === RemovalPolicy.DESTROY,
    });

    const headers = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'Report explorer: the policy of web/headers.ts',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: contentSecurityPolicy(props.connectSources), override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
    });

    // Caching disabled: then the AllViewer policies may forward Authorization
    // (https://repost.aws/knowledge-center/cloudfront-authorization-header); the Host header must stay
    // API Gateway's own, or it answers 403.
    const toApi: BehaviorOptions = {
      origin: new HttpOrigin(`${props.api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`, {
        protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
        readTimeout: Duration.seconds(30),
      }),
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
    };

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Report explorer and the API it calls',
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
      },
      additionalBehaviors: Object.fromEntries(apiPathPatterns().map((pattern) => [pattern, toApi])),
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: props.priceClass ?? PriceClass.PRICE_CLASS_100,
    });

    const site = Source.asset(join(__dirname, '..', 'web'), {
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        // Never pulled: the local build below always succeeds where the CDK app runs (esbuild is a dependency).
        image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22-alpine'),
        local: {
          tryBundle(outputDir) {
            writeExplorer(outputDir);
            return true;
          },
        },
      },
    });
    const logGroup = new LogGroup(this, 'DeploymentLogs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.deploymentLogs = logGroup;
    this.assets = new BucketDeployment(this, 'Assets', {
      sources: [site],
      destinationBucket: this.bucket,
      exclude: ['index.html'],
      // Keep the assets of earlier deployments: a page loaded before a deployment still finds its script.
      prune: false,
      cacheControl: [CacheControl.fromString(ASSET_CACHE_CONTROL)],
      logGroup,
    });
    this.page = new BucketDeployment(this, 'Page', {
      sources: [site],
      destinationBucket: this.bucket,
      exclude: ['*'],
      include: ['index.html'],
      prune: false,
      cacheControl: [CacheControl.fromString(PAGE_CACHE_CONTROL)],
      distribution: this.distribution,
      distributionPaths: ['/', '/index.html'],
      logGroup,
    });
    this.page.node.addDependency(this.assets);

    this.acknowledgeFindings();
  }

  /**
   * Writes the page's sign-in settings next to it (`/sign-in.json`), resolved at deploy time, so one
   * build of the page serves every stack; revalidated on every load and invalidated at each deployment.
   */
  public publishSignIn(config: SignInConfig): void {
    this.signInSettings = new BucketDeployment(this, 'SignInSettings', {
      sources: [Source.jsonData(SIGN_IN_CONFIG_PATH.slice(1), config)],
      destinationBucket: this.bucket,
      prune: false,
      cacheControl: [CacheControl.fromString(PAGE_CACHE_CONTROL)],
      distribution: this.distribution,
      distributionPaths: [SIGN_IN_CONFIG_PATH],
      logGroup: this.deploymentLogs,
    });
  }

  /** The address of the page. */
  public get url(): string {
    return `https://${this.distribution.distributionDomainName}/`;
  }

  private acknowledgeFindings(): void {
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Holds only the public code of the page, written by CloudFormation and read by CloudFront alone (OAC); the data the page shows is requested through the API, whose access log records every call.',
    });
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason:
          'Operators use the explorer from anywhere; the data behind it is guarded by the API’s JWT authorizer, not by geography.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'The distribution serves static files and forwards to the API, which authorizes every call (JWT) and is throttled stage-wide; a web ACL (which must live in us-east-1) can be attached per deployment.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'The static files hold no data; every data request goes on to the API, whose access log records it with the caller.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'The default *.cloudfront.net certificate fixes the minimum TLS version; a custom domain with its own certificate (and TLSv1.2_2021) is a per-deployment choice.',
      },
    );
    // aws-cdk-lib's one bucket deployment function of the stack, which both deployments use.
    const deployer = this.page.handlerRole.node.scope as Construct;
    const grants =
      'The grants aws-cdk-lib gives its bucket deployment function: read the staged page from the CDK assets bucket, write it into the site bucket';
    Validations.of(deployer).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: 'The bucket deployment function of aws-cdk-lib writes its own logs with the basic execution role.',
      },
      ...['s3:GetBucket*', 's3:GetObject*', 's3:List*', 's3:Abort*', 's3:DeleteObject*'].map((action) => ({
        id: `AwsSolutions-IAM5[Action::${action}]`,
        reason: `${grants}.`,
      })),
      {
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
        reason: `${grants} (the staged asset).`,
      },
      {
        id: `AwsSolutions-IAM5[Resource::<${logicalIdOf(this.bucket)}.Arn>/*]`,
        reason: `${grants} (every object of the page).`,
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'cloudfront:CreateInvalidation and GetInvalidation, granted by aws-cdk-lib on "*" to invalidate index.html after a deployment.',
      },
      {
        id: 'AwsSolutions-L1',
        reason: 'The bucket deployment function runtime is chosen by aws-cdk-lib, not by this app.',
      },
    );
    // checkov's reading of the same grants (its table in lib/checkov.ts is by resource type; this is one policy).
    const policy = this.page.handlerRole.node.tryFindChild('DefaultPolicy')?.node.defaultChild;
    if (policy instanceof CfnResource) {
      policy.addMetadata('checkov', {
        skip: [
          {
            id: 'CKV_AWS_111',
            comment: `${grants}, and cloudfront:CreateInvalidation, which aws-cdk-lib grants on "*", to invalidate index.html after a deployment.`,
          },
        ],
      });
    }
  }
}
