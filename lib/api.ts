import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  CorsHttpMethod,
  HttpApi,
  type HttpMethod,
  HttpNoneAuthorizer,
  HttpStage,
  type IHttpRouteAuthorizer,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer, HttpUserPoolAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import {
  AccountRecovery,
  ClientAttributes,
  FeaturePlan,
  Mfa,
  StringAttribute,
  UserPool,
  type UserPoolClient,
} from 'aws-cdk-lib/aws-cognito';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/**
 * The path API Gateway routes for a route path of functions/routes.ts. A static segment holding a
 * colon, a custom method in the style of `/reports:query` (AIP-136), becomes a path variable named
 * after its position (`/{segment1}`), and the function checks the segment itself (the route guard in
 * functions/commons). API Gateway documents which characters a REST API resource path may hold, but
 * not an HTTP API route path; a variable is a route it documents, and it matches `/reports:query`
 * whether or not the client percent-encodes the colon, since API Gateway decodes path parameters.
 */
export function gatewayRoutePath(path: string): string {
  return path
    .split('/')
    .map((segment, i) => (segment.includes(':') && !segment.startsWith('{') ? `{segment${i}}` : segment))
    .join('/');
}

/**
 * What a user's app client may read: the organization and the location grant are in the ID token,
 * never writable by its user (an administrator sets them, docs/access.md).
 */
export const userReadAttributes = (): ClientAttributes =>
  new ClientAttributes()
    .withStandardAttributes({ email: true, emailVerified: true })
    .withCustomAttributes('organizationId', 'locations');
export const userWriteAttributes = (): ClientAttributes =>
  new ClientAttributes().withStandardAttributes({ email: true });

/**
 * Response headers a browser may read: truncation flag, deprecation notice, retry advice, request id,
 * validator, and which rows answered a report (`server-timing`, docs/rollups.md). With CORS configured,
 * API Gateway ignores the integration's own CORS headers and sends these
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-cors.html), so a header a
 * page elsewhere must read is listed here or it is hidden from `fetch`.
 */
export const EXPOSED_HEADERS = [
  'x-report-truncated',
  'deprecation',
  'retry-after',
  'x-request-id',
  'etag',
  'server-timing',
  'location',
];

export interface JwtIssuerOptions {
  /** Issuer URL (the `iss` claim), e.g. `https://login.example.com/`. */
  readonly issuer: string;
  /** Accepted audiences (`aud` or `client_id` claim). */
  readonly audience: readonly string[];
}

export interface AddRouteOptions {
  /**
   * Why this route needs no token: it is then deployed without an authorizer (the API's default is
   * the JWT authorizer), and the reason acknowledges cdk-nag's AwsSolutions-APIG4 finding.
   * @default - behind the JWT authorizer
   */
  readonly publicBecause?: string;
  /**
   * The authorizer of this route, in place of the API's default.
   * @default - the API's JWT authorizer
   */
  readonly authorizer?: IHttpRouteAuthorizer;
}

export interface ApiProps {
  /**
   * Trust this issuer instead of creating a Cognito user pool.
   * @default - a Cognito user pool with the custom attribute `organizationId` and one app client
   */
  readonly jwt?: JwtIssuerOptions;
  /**
   * Origins allowed by CORS. Empty = no CORS configuration (same-origin and non-browser callers only).
   * @default []
   */
  readonly corsOrigins?: readonly string[];
  /**
   * Steady-state requests per second across the API.
   * @default 50
   */
  readonly throttleRateLimit?: number;
  /**
   * Burst of requests across the API.
   * @default 100
   */
  readonly throttleBurstLimit?: number;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the user pool (and its users) when the stack deletes it.
   * @default RemovalPolicy.DESTROY
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The public edge: an API Gateway HTTP API whose every route requires a JWT (from the Cognito user
 * pool created here, or from the configured issuer), with stage-wide throttling, JSON access logs
 * and CORS for the configured origins.
 */
export class Api extends Construct {
  public readonly httpApi: HttpApi;
  public readonly stage: HttpStage;
  public readonly authorizer: IHttpRouteAuthorizer;
  public readonly accessLogs: LogGroup;
  /** Created unless `jwt` is given. */
  public readonly userPool?: UserPool;
  public readonly userPoolClient?: UserPoolClient;
  /** The app clients whose ID tokens the authorizer takes (their ids are its audience). */
  private readonly audience: UserPoolClient[] = [];
  private routesAdded = false;

  constructor(scope: Construct, id: string, props: ApiProps = {}) {
    super(scope, id);
    const origins = [...(props.corsOrigins ?? [])];

    if (props.jwt) {
      this.authorizer = new HttpJwtAuthorizer('Jwt', props.jwt.issuer, { jwtAudience: [...props.jwt.audience] });
    } else {
      this.userPool = this.createUserPool(props.removalPolicy ?? RemovalPolicy.DESTROY);
      this.userPoolClient = this.userPool.addClient('Client', {
        authFlows: { userPassword: true, userSrp: true },
        // Tokens by password (the CLI of docs/aws.md) only: people sign in on the managed login pages
        // through the explorer's own client (lib/sign-in.ts), so this one offers no OAuth flow (CDK's
        // default would be the implicit and code grants to https://example.com).
        disableOAuth: true,
        generateSecret: false,
        preventUserExistenceErrors: true,
        idTokenValidity: Duration.hours(1),
        accessTokenValidity: Duration.hours(1),
        readAttributes: userReadAttributes(),
        writeAttributes: userWriteAttributes(),
      });
      this.audience.push(this.userPoolClient);
      // The authorizer reads the list when the first route binds it: trustClient() adds to it until then.
      this.authorizer = new HttpUserPoolAuthorizer('Cognito', this.userPool, { userPoolClients: this.audience });
    }

    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: 'Location and Reporting Service',
      createDefaultStage: false,
      defaultAuthorizer: this.authorizer,
      ...(origins.length > 0
        ? {
            corsPreflight: {
              allowOrigins: origins,
              allowMethods: [CorsHttpMethod.GET, CorsHttpMethod.POST, CorsHttpMethod.PUT, CorsHttpMethod.DELETE],
              allowHeaders: ['authorization', 'content-type', 'accept', 'if-none-match', 'if-match'],
              exposeHeaders: EXPOSED_HEADERS,
              maxAge: Duration.hours(1),
            },
          }
        : {}),
    });

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.throttleRateLimit ?? 50, burstLimit: props.throttleBurstLimit ?? 100 },
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            time: '$context.requestTime',
            ip: '$context.identity.sourceIp',
            userAgent: '$context.identity.userAgent',
            method: '$context.httpMethod',
            route: '$context.routeKey',
            path: '$context.path',
            status: '$context.status',
            responseLength: '$context.responseLength',
            latencyMs: '$context.responseLatency',
            integrationLatencyMs: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            authorizerError: '$context.authorizer.error',
            subject: '$context.authorizer.claims.sub',
          }),
        ),
      },
    });
  }

  /**
   * Routes `method path` to the function (payload format 2.0), behind the JWT authorizer unless
   * `options.publicBecause` (then with none: API Gateway passes the request on without a token). A path
   * segment that is a custom method (`/reports:query`) is deployed as a path variable: see
   * {@link gatewayRoutePath}.
   */
  public addRoute(method: HttpMethod, path: string, fn: IFunction, id: string, options: AddRouteOptions = {}): void {
    this.routesAdded = true;
    const routes = this.httpApi.addRoutes({
      path: gatewayRoutePath(path),
      methods: [method],
      integration: new HttpLambdaIntegration(`${id}Integration`, fn),
      ...(options.publicBecause === undefined
        ? options.authorizer
          ? { authorizer: options.authorizer }
          : {}
        : { authorizer: new HttpNoneAuthorizer() }),
    });
    if (options.publicBecause === undefined) return;
    for (const route of routes)
      Validations.of(route).acknowledge({ id: 'AwsSolutions-APIG4', reason: options.publicBecause });
  }

  /**
   * Makes the authorizer take the ID tokens of another app client of the user pool (the explorer's).
   * Before the first route: the authorizer fixes its audience when a route first binds it.
   */
  public trustClient(client: UserPoolClient): void {
    if (!this.userPool) throw new Error('trustClient: this API trusts an external issuer, not the stack’s user pool.');
    if (this.routesAdded)
      throw new Error(
        'trustClient: call it before adding routes; the authorizer’s audience is fixed when the first route binds it.',
      );
    this.audience.push(client);
  }

  /**
   * Per-route throttling on top of the stage's, for a route whose requests cost the backend far more
   * than the others (API Gateway's route settings, keyed by route key).
   */
  public throttleRoute(
    method: HttpMethod,
    path: string,
    throttle: { readonly rateLimit: number; readonly burstLimit: number },
  ): void {
    const stage = this.stage.node.defaultChild as CfnStage;
    // RouteSettings is untyped JSON in CloudFormation (a map of route keys), so CDK passes the keys
    // through as written: they must be CloudFormation's own names.
    stage.routeSettings = {
      ...(stage.routeSettings as Record<string, unknown> | undefined),
      [`${method} ${gatewayRoutePath(path)}`]: {
        ThrottlingRateLimit: throttle.rateLimit,
        ThrottlingBurstLimit: throttle.burstLimit,
      },
    };
  }

  /**
   * The base URL of the API, without a trailing slash, so that `$URL/locations` is a valid request
   * path (the `$default` stage's URL ends in `/`, and `//locations` matches no route).
   */
  public get url(): string {
    return this.httpApi.apiEndpoint;
  }

  private createUserPool(removalPolicy: RemovalPolicy): UserPool {
    const pool = new UserPool(this, 'UserPool', {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      customAttributes: {
        // Set by an administrator when the user is created; immutable, so no one can move a user
        // into another organization afterwards.
        organizationId: new StringAttribute({ minLen: 1, maxLen: 64, mutable: false }),
        // The location grant (ids separated by commas): set by an administrator to limit a user to
        // some locations (a store manager); absent: every location of the organization.
        locations: new StringAttribute({ minLen: 1, maxLen: 2048, mutable: true }),
      },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { sms: false, otp: true },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      featurePlan: FeaturePlan.ESSENTIALS,
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy,
    });
    Validations.of(pool).acknowledge(
      {
        id: 'AwsSolutions-COG2',
        reason:
          'Users are created by administrators (no self sign-up); TOTP MFA is available to every user and can be made required per deployment.',
      },
      {
        id: 'AwsSolutions-COG8',
        reason:
          'The Plus feature plan (threat protection) is billed per active user; Essentials is the default, upgrade per deployment when needed.',
      },
    );
    return pool;
  }
}
