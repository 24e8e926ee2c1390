import { Duration } from 'aws-cdk-lib';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import {
  LambdaVersion,
  ManagedLoginVersion,
  ResourceServerScope,
  type UserPool,
  type UserPoolDomain,
  UserPoolOperation,
  type UserPoolResourceServer,
} from 'aws-cdk-lib/aws-cognito';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { INGEST_SCOPE, RESOURCE_SERVER } from '../functions/commons/http/identity';
import { ENV, ServiceFunction } from './service-function';

export interface MachineClientsProps {
  /** The stack's user pool (Essentials plan: its V3_0 trigger event sees client-credentials grants). */
  readonly userPool: UserPool;
  /** The service's table, where each machine client's organization is kept. */
  readonly table: ITable;
  /** `functions/pre-token-generation.ts` */
  readonly preTokenGenerationEntry: string;
  /** `functions/authorize-ingest.ts` */
  readonly authorizerEntry: string;
  /** Prefix of the user pool's domain (`https://<prefix>.auth.<region>.amazoncognito.com`), unique in the region. */
  readonly domainPrefix: string;
  /** The token claim that carries the organization. */
  readonly organizationClaim: string;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /**
   * How long API Gateway keeps an authorizer's answer per token: also how long a revoked client's
   * tokens still pass.
   * @default Duration.minutes(5)
   */
  readonly authorizerCacheTtl?: Duration;
}

/**
 * Gateways and backfill jobs as OAuth 2.0 machine clients of the user pool: the resource server
 * `lrs` with its one scope `ingest`, the pool's domain (its token endpoint serves the
 * client-credentials grant), the pre-token-generation trigger that puts each client's organization
 * into its access tokens, and the Lambda authorizer of the ingest route. The app clients themselves
 * are created at run time, one per gateway, by `npm run ingest-client -- create` (bin/ingest-client.ts).
 */
export class MachineClients extends Construct {
  public readonly resourceServer: UserPoolResourceServer;
  public readonly domain: UserPoolDomain;
  public readonly preTokenGeneration: ServiceFunction;
  public readonly authorizerFunction: ServiceFunction;
  public readonly authorizer: HttpLambdaAuthorizer;
  /** `https://<prefix>.auth.<region>.amazoncognito.com/oauth2/token` */
  public readonly tokenUrl: string;

  constructor(scope: Construct, id: string, props: MachineClientsProps) {
    super(scope, id);
    const { userPool, table } = props;
    this.resourceServer = userPool.addResourceServer('ResourceServer', {
      identifier: RESOURCE_SERVER,
      userPoolResourceServerName: 'Location and Reporting Service',
      scopes: [
        new ResourceServerScope({
          scopeName: INGEST_SCOPE.slice(RESOURCE_SERVER.length + 1),
          scopeDescription: 'Write documents to POST /ingest/{collection}',
        }),
      ],
    });
    // The same domain serves people's sign-in to the explorer (lib/sign-in.ts): the newer managed login.
    this.domain = userPool.addDomain('Domain', {
      cognitoDomain: { domainPrefix: props.domainPrefix },
      managedLoginVersion: ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });
    this.tokenUrl = `${this.domain.baseUrl()}/oauth2/token`;

    const environment = { [ENV.organizationClaim]: props.organizationClaim };
    this.preTokenGeneration = new ServiceFunction(this, 'PreTokenGeneration', {
      entry: props.preTokenGenerationEntry,
      description:
        'Adds the organization of a machine client to its access tokens (Cognito pre token generation, V3_0)',
      // Cognito waits 5 s for a trigger, whatever the function's own timeout.
      timeout: Duration.seconds(5),
      memorySize: 256,
      environment,
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    }).bindTableItemReads(table);
    userPool.addTrigger(UserPoolOperation.PRE_TOKEN_GENERATION_CONFIG, this.preTokenGeneration, LambdaVersion.V3_0);

    this.authorizerFunction = new ServiceFunction(this, 'Authorizer', {
      entry: props.authorizerEntry,
      description:
        'Authorizes POST /ingest/{collection}: a machine client access token with the ingest scope, of a client not revoked',
      timeout: Duration.seconds(10),
      memorySize: 256,
      environment: { ...environment, [ENV.jwtIssuer]: userPool.userPoolProviderUrl },
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    }).bindTableItemReads(table);
    this.authorizer = new HttpLambdaAuthorizer('IngestAuthorizer', this.authorizerFunction, {
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      identitySource: ['$request.header.Authorization'],
      resultsCacheTtl: props.authorizerCacheTtl ?? Duration.minutes(5),
    });
  }
}
