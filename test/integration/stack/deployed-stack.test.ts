import { createSocket, type Socket } from 'node:dgram';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DeleteTableCommand,
  DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { StateMachineDefinition } from 'aws-local-stepfunctions';
import { GATEWAY_ROUTES } from '../../../functions/routes';
import { gatewayRoutePath } from '../../../lib/api';
import { HANDLERS, handlerPath } from '../../../lib/stack';
import { importLocationsCli } from '../../../bin/import-locations';
import { ingestCli } from '../../../bin/ingest-cli';
import { ensureLambdaNode, LAMBDA_NODE_MAJOR } from '../../setup/lambda-node';
import { testClient } from '../support/opensearch';
import { ROLLUP_STATE_TTL_MS } from '../../../shared/stores/opensearch/rollups/marks';
import { type CloudAssembly, idsOf, type Json, Resolver, type Resource, synthesizeApp } from './assembly';
import {
  type CognitoControlPlane,
  type LambdaEndpoint,
  startCognitoControlPlane,
  startLambdaInvoke,
  startSqs,
  startStepFunctions,
  type SqsEndpoint,
  startTlsFront,
  type StepFunctionsEndpoint,
  type TlsFront,
} from './aws-endpoints';
import { administrationTests } from './administration';
import { HttpApi } from './http-api';
import { type LocalIssuer, startLocalIssuer } from './cognito';
import { machineClientTests } from './machine-clients';
import { LambdaFunction } from './lambda-function';
import { webhookTests } from './webhooks';

/**
 * What `cdk synth` ships, run as AWS would run it: the cloud assembly (template and asset folders)
 * of `npx cdk synth`, each function's asset loaded by Lambda's Node.js (22) in a process of its own
 * with the environment the template gives it, against the suite's real OpenSearch node and DynamoDB
 * Local. Requests go through the template's HTTP API routes to their integrations' functions; the
 * occupancy refresh is the EventBridge rule's target; the index templates come from the custom
 * resource's function; split reports run the template's state machine definition, its Map task
 * invoking the slice worker's asset. Only what cannot run here is stood in for (./aws-endpoints.ts):
 * TLS in front of the node, Step Functions' StartSyncExecution, the JWT check of API Gateway.
 *
 * The data is small and every expected value is worked out by hand next to it.
 */

const ORG = '5f0c3d4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
const OTHER_ORG = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';
const PREFIX = `stack${process.pid}-`;
const TABLE = `stack-${process.pid}`;
const REGION = 'us-east-1';
const USER_POOL_ID = `${REGION}_stacktest`;
const ALL_DAY = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
    d,
    [{ open: '00:00', close: '24:00' }],
  ]),
);

const LOCATIONS = {
  locations: [
    {
      id: 'hall',
      organizationId: ORG,
      type: 'venue',
      timezone: 'UTC',
      sensorGroups: [
        {
          id: 1,
          name: 'Hall',
          lines: [{ trackingCameraId: 'cam-1', lineId: 'door', inDirection: 'A' }],
          openingHours: ALL_DAY,
        },
      ],
    },
    { id: 'elsewhere', organizationId: OTHER_ORG, type: 'venue', timezone: 'Europe/Berlin' },
  ],
};

const crossing = (timestamp: string, label: string, end: 'A' | 'B', organizationId = ORG, locationId = 'hall') => ({
  organizationId,
  locationId,
  trackingCameraId: 'cam-1',
  label,
  timestamp,
  crossedPaths: [{ id: 'door', end }],
});

/** Today (UTC, the hall's zone) from midnight on: 3 crossings in (A) and 1 out (B), so the hall holds 3 − 1 = 2. */
const midnight = new Date(new Date().toISOString().slice(0, 10)).getTime();
const today = (ms: number) => new Date(midnight + ms).toISOString();
const LIVE = [
  crossing(today(1), 'person', 'A'),
  crossing(today(2), 'person', 'A'),
  crossing(today(3), 'person', 'A'),
  crossing(today(4), 'person', 'B'),
];

/**
 * March 2025, in the hall: 3 March 2 people and 1 car, 4 March 1 person, 5 March 1 car (its last
 * millisecond). The other organization's car on 3 March must never be counted.
 */
const HISTORY = [
  crossing('2025-03-03T08:00:00.000Z', 'person', 'A'),
  crossing('2025-03-03T09:30:00.000Z', 'person', 'B'),
  crossing('2025-03-03T10:00:00.000Z', 'car', 'A'),
  crossing('2025-03-04T12:00:00.000Z', 'person', 'A'),
  crossing('2025-03-05T23:59:59.999Z', 'car', 'B'),
  crossing('2025-03-03T11:00:00.000Z', 'car', 'A', OTHER_ORG, 'elsewhere'),
];
const DAILY_BY_LABEL = [
  { timestamp: '2025-03-03T00:00:00.000Z', car: 1, person: 2 },
  { timestamp: '2025-03-04T00:00:00.000Z', person: 1 },
  { timestamp: '2025-03-05T00:00:00.000Z', car: 1 },
];
const DAILY_BY_LABEL_CSV =
  'timestamp,car,person\r\n2025-03-03T00:00:00.000Z,1,2\r\n2025-03-04T00:00:00.000Z,0,1\r\n2025-03-05T00:00:00.000Z,1,0\r\n';
const report = (extra: Json = {}) =>
  JSON.stringify({
    filters: [{ type: 'range', field: 'timestamp', from: '2025-03-03T00:00:00Z', to: '2025-03-06T00:00:00Z' }],
    aggregations: [
      { type: 'dateHistogram', interval: '1d' },
      { type: 'terms', field: 'label' },
    ],
    ...extra,
  });

/** Every handler module of the service; an asset must contain exactly one of them, its own. */
const HANDLER_MODULES = new Set(HANDLERS.map(handlerPath));
/** The handler module each function must be built from, by how the template reaches it. */
const HANDLER_OF_ROUTE = Object.fromEntries(
  GATEWAY_ROUTES.map((r) => [`${r.method} ${gatewayRoutePath(r.path)}`, `functions/${r.handler}.ts`]),
);

let assembly: CloudAssembly;
let resolver: Resolver;
let api: HttpApi;
let tls: TlsFront;
let cognitoIssuer: LocalIssuer;
let stepFunctions: StepFunctionsEndpoint;
let lambdaInvoke: LambdaEndpoint;
let cognitoControl: CognitoControlPlane;
let sqs: SqsEndpoint;
let xray: Socket;
const traces: string[] = [];
const functions = new Map<string, LambdaFunction>();
const dynamo = new DynamoDBClient({
  endpoint: process.env.DYNAMODB_ENDPOINT,
  region: REGION,
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const openSearch = testClient();

const fn = (id: string): LambdaFunction => {
  const found = functions.get(id);
  if (!found) throw new Error(`${id} is not a service function of the stack`);
  return found;
};
const props = (id: string): Json => assembly.resources[id]!.Properties;
const claimOf = (functionId: string) =>
  String((props(functionId).Environment as { Variables: Json }).Variables.ORGANIZATION_CLAIM);
/** Who calls: the token's groups (as API Gateway hands an array over: `[admin]`), subject and location grant. */
interface Caller {
  readonly org?: string;
  readonly groups?: readonly string[];
  readonly sub?: string;
  readonly locations?: readonly string[];
}

/** A request through the API as a user of `org` (after API Gateway verified the token). */
const call = (
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string>; query?: Record<string, string> } & Caller = {},
) => {
  const route = api.routes.find(
    (r) => r.method === method && new RegExp(`^${r.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path),
  );
  const { org, groups, sub, locations, ...request } = options;
  const claims: Record<string, string> = route
    ? {
        sub: sub ?? 'user-1',
        [claimOf(route.functionId)]: org ?? ORG,
        token_use: 'id',
        ...(groups ? { 'cognito:groups': `[${groups.join(' ')}]` } : {}),
        ...(locations ? { 'custom:locations': locations.join(',') } : {}),
      }
    : {};
  return api.request({ method, path, claims, ...request });
};

/** What each reference in the template stands for here. */
function physicalValue(id: string, resource: Resource, attribute?: string): string | undefined {
  switch (resource.Type) {
    case 'AWS::Lambda::Function':
      return attribute === 'Arn' ? `arn:aws:lambda:${REGION}:123456789012:function:${id}` : attribute ? undefined : id;
    case 'AWS::OpenSearchService::Domain':
      return attribute === 'DomainEndpoint' ? new URL(tls.url).host : undefined;
    case 'AWS::DynamoDB::Table':
      return attribute ? undefined : TABLE;
    case 'AWS::StepFunctions::StateMachine':
      return attribute ? undefined : `arn:aws:states:${REGION}:123456789012:stateMachine:${id}`;
    case 'AWS::Events::Rule':
      return attribute === 'Arn' ? `arn:aws:events:${REGION}:123456789012:rule/${id}` : undefined;
    case 'AWS::S3::Bucket':
      return attribute ? undefined : `${id.toLowerCase()}-bucket`;
    case 'AWS::IAM::Role':
      // The role OpenSearch assumes to write snapshots: the snapshot function passes its ARN.
      return attribute === 'Arn' ? `arn:aws:iam::123456789012:role/${id}` : attribute ? undefined : id;
    case 'AWS::Cognito::UserPool':
      // ProviderURL is the issuer of the pool's tokens (https://cognito-idp.<region>.amazonaws.com/<id>): here, the
      // local one.
      return attribute === 'ProviderURL' ? cognitoIssuer.issuer : attribute ? undefined : USER_POOL_ID;
    case 'AWS::Cognito::UserPoolDomain':
      // Its Ref is the domain prefix; machine clients' token endpoint is
      // `https://<prefix>.auth.<region>.amazoncognito.com/oauth2/token`.
      return attribute ? undefined : 'stack-test';
    case 'AWS::SQS::Queue':
      return attribute === 'Arn'
        ? `arn:aws:sqs:${REGION}:123456789012:${id}`
        : attribute === 'QueueName'
          ? id
          : attribute
            ? undefined
            : sqs.queueUrl(id);
    case 'AWS::Cognito::UserPoolClient':
    case 'AWS::ApiGatewayV2::Integration':
    case 'AWS::ApiGatewayV2::Authorizer':
      return attribute ? undefined : id;
    default:
      return undefined;
  }
}

/** The environment Lambda gives a function: the template's variables, resolved, plus the runtime's own. */
function lambdaEnvironment(
  id: string,
  endpoints: { sfn: string; lambda: string; cognito: string; sqs: string; caFile: string; xray: string },
): Record<string, string> {
  const p = props(id);
  const variables = Object.fromEntries(
    Object.entries((p.Environment as { Variables?: Json } | undefined)?.Variables ?? {}).map(([k, v]) => [
      k,
      resolver.text(v),
    ]),
  );
  return {
    ...variables,
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    AWS_LAMBDA_FUNCTION_NAME: id,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(p.MemorySize ?? 128),
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${id}`,
    AWS_LAMBDA_LOG_STREAM_NAME: '2026/01/01/[$LATEST]stacktest',
    AWS_EXECUTION_ENV: `AWS_Lambda_${String(p.Runtime)}`,
    AWS_ACCESS_KEY_ID: 'ASIASTACKTEST0000000',
    AWS_SECRET_ACCESS_KEY: 'stack-test-secret',
    AWS_SESSION_TOKEN: 'stack-test-session',
    AWS_XRAY_DAEMON_ADDRESS: endpoints.xray,
    AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
    TZ: ':UTC',
    LANG: 'en_US.UTF-8',
    // The test's stand-ins for AWS endpoints: the SDK's own endpoint variables and a trusted CA.
    AWS_ENDPOINT_URL_DYNAMODB: process.env.DYNAMODB_ENDPOINT!,
    AWS_ENDPOINT_URL_SFN: endpoints.sfn,
    AWS_ENDPOINT_URL_LAMBDA: endpoints.lambda,
    AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: endpoints.cognito,
    AWS_ENDPOINT_URL_SQS: endpoints.sqs,
    // The receiver of the webhook tests is on loopback, which the address rules refuse in AWS.
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    NODE_EXTRA_CA_CERTS: endpoints.caFile,
  };
}

/** The table as the template defines it, created in DynamoDB Local. */
async function createTableFromTemplate(): Promise<void> {
  const [tableId] = idsOf(assembly, 'AWS::DynamoDB::Table');
  const p = props(tableId!) as {
    KeySchema: unknown;
    AttributeDefinitions: unknown;
    BillingMode: string;
    TimeToLiveSpecification?: { AttributeName: string; Enabled: boolean };
  };
  await dynamo.send(
    new CreateTableCommand({
      TableName: TABLE,
      KeySchema: p.KeySchema,
      AttributeDefinitions: p.AttributeDefinitions,
      BillingMode: p.BillingMode,
    } as CreateTableCommandInput),
  );
  if (p.TimeToLiveSpecification)
    await dynamo.send(
      new UpdateTimeToLiveCommand({ TableName: TABLE, TimeToLiveSpecification: p.TimeToLiveSpecification }),
    );
}

/** The functions of the service (Powertools-configured), not CDK's own provider framework function. */
const serviceFunctionIds = () =>
  idsOf(assembly, 'AWS::Lambda::Function').filter(
    (id) =>
      (props(id).Environment as { Variables?: Json } | undefined)?.Variables?.POWERTOOLS_SERVICE_NAME !== undefined,
  );

/** The one resource of a type whose properties satisfy `test`. */
const theOne = (type: string, test: (p: Json) => boolean = () => true): string => {
  const ids = idsOf(assembly, type).filter((id) => test(props(id)));
  if (ids.length !== 1) throw new Error(`expected one ${type}, found ${ids.length}`);
  return ids[0]!;
};
const functionIdOfArn = (arn: unknown): string => resolver.text(arn).split(':').pop()!;

/** The rule of a schedule, by its cron expression: the occupancy refresh's or the retention's. */
const ruleOf = (schedule: string) => theOne('AWS::Events::Rule', (p) => p.ScheduleExpression === schedule);
const REFRESH_SCHEDULE = 'cron(0/5 * * * ? *)';
const RETENTION_SCHEDULE = 'cron(15 3 * * ? *)';
const SNAPSHOT_SCHEDULE = 'cron(15 4 * * ? *)';
const ROLLUPS_SCHEDULE = 'rate(1 minute)';
const targetOf = (rule: string) => functionIdOfArn((props(rule).Targets as { Arn: unknown }[])[0]!.Arn);
const refreshFunctionId = () => targetOf(ruleOf(REFRESH_SCHEDULE));
const retentionFunctionId = () => targetOf(ruleOf(RETENTION_SCHEDULE));
const snapshotFunctionId = () => targetOf(ruleOf(SNAPSHOT_SCHEDULE));
const rollupsFunctionId = () => targetOf(ruleOf(ROLLUPS_SCHEDULE));
const setupIndicesFunctionId = () => {
  const framework = theOne(
    'AWS::Lambda::Function',
    (p) => (p.Environment as { Variables?: Json } | undefined)?.Variables?.USER_ON_EVENT_FUNCTION_ARN !== undefined,
  );
  return functionIdOfArn((props(framework).Environment as { Variables: Json }).Variables.USER_ON_EVENT_FUNCTION_ARN);
};

beforeAll(async () => {
  const nodePath = ensureLambdaNode();
  // A prefix of our own keeps this stack's index templates apart from the other test files' on the shared node.
  assembly = synthesizeApp({ openSearchIndexPrefix: PREFIX });
  tls = await startTlsFront('opensearch', process.env.OPENSEARCH_URL!);
  cognitoIssuer = await startLocalIssuer(USER_POOL_ID);
  // Lambda trusts the public CAs; the functions here trust the two test certificates of the stand-ins.
  const caFile = join(tmpdir(), `stack-ca-${process.pid}.pem`);
  writeFileSync(caFile, readFileSync(tls.caFile, 'utf8') + readFileSync(cognitoIssuer.tls.caFile, 'utf8'));
  resolver = new Resolver(assembly, physicalValue);
  xray = createSocket('udp4');
  xray.on('message', (m) => traces.push(m.toString('utf8')));
  await new Promise<void>((resolve) => xray.bind(0, '127.0.0.1', () => resolve()));
  const machineId = theOne('AWS::StepFunctions::StateMachine');
  stepFunctions = await startStepFunctions([
    {
      arn: resolver.text({ Ref: machineId }),
      definition: JSON.parse(resolver.text(props(machineId).DefinitionString)) as StateMachineDefinition,
      invoke: (functionArn, input) => fn(functionIdOfArn(functionArn)).invoke(input),
    },
  ]);
  // The locations function invokes the refresh function asynchronously; the ingest-clients function creates app
  // clients.
  lambdaInvoke = await startLambdaInvoke((name, payload) => fn(name).invoke(payload));
  cognitoControl = await startCognitoControlPlane();
  sqs = await startSqs();
  const endpoints = {
    sfn: stepFunctions.url,
    lambda: lambdaInvoke.url,
    cognito: cognitoControl.url,
    sqs: sqs.url,
    caFile,
    xray: `127.0.0.1:${xray.address().port}`,
  };
  for (const id of serviceFunctionIds()) {
    const p = props(id);
    functions.set(
      id,
      new LambdaFunction({
        name: id,
        codeDir: assembly.assetDirOf(id),
        handler: String(p.Handler),
        environment: lambdaEnvironment(id, endpoints),
        timeoutSeconds: Number(p.Timeout ?? 3),
        arn: resolver.text({ 'Fn::GetAtt': [id, 'Arn'] }),
        nodePath,
      }),
    );
  }
  api = new HttpApi(assembly, resolver, fn);
  await createTableFromTemplate();
}, 600_000);

afterAll(async () => {
  await Promise.all([...functions.values()].map((f) => f.stop()));
  rmSync(join(tmpdir(), `stack-ca-${process.pid}.pem`), { force: true });
  await Promise.all([
    tls?.close(),
    cognitoIssuer?.close(),
    stepFunctions?.close(),
    lambdaInvoke?.close(),
    cognitoControl?.close(),
    sqs?.close(),
    new Promise<void>((r) => (xray ? xray.close(() => r()) : r())),
  ]);
  await dynamo.send(new DeleteTableCommand({ TableName: TABLE })).catch(() => undefined);
  await openSearch.indices
    .delete({ index: `${PREFIX}*`, ignore_unavailable: true, expand_wildcards: 'all' })
    .catch(() => undefined);
  await openSearch.indices.deleteIndexTemplate({ name: `${PREFIX}*` }).catch(() => undefined);
  await openSearch.close();
  dynamo.destroy();
  if (assembly) rmSync(assembly.outdir, { recursive: true, force: true });
});

afterEach(() => {
  // On a failure, what the functions printed is the first thing to read.
  const state = expect.getState();
  if (state.assertionCalls > 0 && state.numPassingAsserts < state.assertionCalls) {
    for (const [id, f] of functions) if (f.logs.length > 0) console.log(`--- ${id}\n${f.logs.slice(-20).join('\n')}`);
  }
});

describe('the cloud assembly', () => {
  it('runs every service function on Node.js 22, and the functions are run here on Node.js 22', () => {
    expect(serviceFunctionIds()).toHaveLength(21);
    for (const id of serviceFunctionIds())
      expect({ id, runtime: props(id).Runtime }).toEqual({ id, runtime: 'nodejs22.x' });
    expect(LAMBDA_NODE_MAJOR).toBe(22);
  });

  it('gives each function an asset of its own, built from its own handler and no other', () => {
    const expected: Record<string, string> = {
      ...Object.fromEntries(api.routes.map((r) => [r.functionId, HANDLER_OF_ROUTE[r.routeKey]!])),
      [refreshFunctionId()]: 'functions/refresh-occupancy.ts',
      [deliverFunctionId()]: 'functions/deliver-webhooks.ts',
      [setupIndicesFunctionId()]: 'functions/setup-indices.ts',
      [retentionFunctionId()]: 'functions/apply-retention.ts',
      [snapshotFunctionId()]: 'functions/take-snapshot.ts',
      [rollupsFunctionId()]: 'functions/rebuild-rollups.ts',
      [workerFunctionId()]: 'functions/run-report-slice.ts',
      [preTokenFunctionId()]: 'functions/pre-token-generation.ts',
      [api.routes.find((r) => r.lambdaAuthorizer)!.lambdaAuthorizer!.functionId]: 'functions/authorize-ingest.ts',
    };
    const handlersIn = (id: string) =>
      (
        JSON.parse(readFileSync(join(assembly.assetDirOf(id), 'index.mjs.map'), 'utf8')) as { sources: string[] }
      ).sources.filter((s) => HANDLER_MODULES.has(s));
    expect(Object.fromEntries(serviceFunctionIds().map((id) => [id, handlersIn(id)]))).toEqual(
      Object.fromEntries(Object.entries(expected).map(([id, h]) => [id, [h]])),
    );
    expect(new Set(serviceFunctionIds().map((id) => assembly.assetDirOf(id))).size).toBe(21);
  });

  it('routes the endpoints of the spec and the administration API behind the JWT authorizer and /health, /problems and OPTIONS without one, with payload format 2.0', () => {
    // The custom method `/reports:query` is deployed as a path variable (lib/api.ts, gatewayRoutePath).
    const open = [
      'GET /health',
      'GET /problems',
      'ANY /health',
      'ANY /problems',
      ...api.routes.filter((r) => r.method === 'OPTIONS').map((r) => r.routeKey),
    ];
    expect(api.routes.map((r) => [r.routeKey, r.authorizationType, r.payloadFormatVersion]).sort()).toEqual([
      // One ANY route per path, to the function of its routes (405 with Allow, HEAD as GET).
      ['ANY /alert-rules', 'JWT', '2.0'],
      ['ANY /alert-rules/{ruleId}', 'JWT', '2.0'],
      ['ANY /health', 'NONE', '2.0'],
      ['ANY /ingest-clients', 'JWT', '2.0'],
      ['ANY /ingest-clients/{clientId}', 'JWT', '2.0'],
      ['ANY /ingest/{collection}', 'CUSTOM', '2.0'],
      ['ANY /insights/overview', 'JWT', '2.0'],
      ['ANY /locations', 'JWT', '2.0'],
      ['ANY /locations/{locationId}', 'JWT', '2.0'],
      ['ANY /locations/{locationId}/changes', 'JWT', '2.0'],
      ['ANY /locations/{locationId}/insights/history', 'JWT', '2.0'],
      ['ANY /locations/{locationId}/insights/live', 'JWT', '2.0'],
      ['ANY /problems', 'NONE', '2.0'],
      ['ANY /webhook-endpoints', 'JWT', '2.0'],
      ['ANY /webhook-endpoints/{endpointId}', 'JWT', '2.0'],
      ['ANY /webhook-endpoints/{endpointId}/deliveries', 'JWT', '2.0'],
      ['ANY /webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry', 'JWT', '2.0'],
      ['ANY /webhook-endpoints/{endpointId}/test', 'JWT', '2.0'],
      ['ANY /webhook-endpoints/{endpointId}/{segment3}', 'JWT', '2.0'],
      ['ANY /{segment1}', 'JWT', '2.0'],
      ['DELETE /alert-rules/{ruleId}', 'JWT', '2.0'],
      ['DELETE /ingest-clients/{clientId}', 'JWT', '2.0'],
      ['DELETE /locations/{locationId}', 'JWT', '2.0'],
      ['DELETE /webhook-endpoints/{endpointId}', 'JWT', '2.0'],
      ['GET /alert-rules', 'JWT', '2.0'],
      ['GET /alert-rules/{ruleId}', 'JWT', '2.0'],
      ['GET /health', 'NONE', '2.0'],
      ['GET /ingest-clients', 'JWT', '2.0'],
      ['GET /insights/overview', 'JWT', '2.0'],
      ['GET /locations', 'JWT', '2.0'],
      ['GET /locations/{locationId}', 'JWT', '2.0'],
      ['GET /locations/{locationId}/changes', 'JWT', '2.0'],
      ['GET /locations/{locationId}/insights/history', 'JWT', '2.0'],
      ['GET /locations/{locationId}/insights/live', 'JWT', '2.0'],
      ['GET /problems', 'NONE', '2.0'],
      // One OPTIONS route per path without a token: a CORS preflight carries none.
      ['GET /webhook-endpoints', 'JWT', '2.0'],
      ['GET /webhook-endpoints/{endpointId}', 'JWT', '2.0'],
      ['GET /webhook-endpoints/{endpointId}/deliveries', 'JWT', '2.0'],
      ['OPTIONS /alert-rules', 'NONE', '2.0'],
      ['OPTIONS /alert-rules/{ruleId}', 'NONE', '2.0'],
      ['OPTIONS /health', 'NONE', '2.0'],
      ['OPTIONS /ingest-clients', 'NONE', '2.0'],
      ['OPTIONS /ingest-clients/{clientId}', 'NONE', '2.0'],
      ['OPTIONS /ingest/{collection}', 'NONE', '2.0'],
      ['OPTIONS /insights/overview', 'NONE', '2.0'],
      ['OPTIONS /locations', 'NONE', '2.0'],
      ['OPTIONS /locations/{locationId}', 'NONE', '2.0'],
      ['OPTIONS /locations/{locationId}/changes', 'NONE', '2.0'],
      ['OPTIONS /locations/{locationId}/insights/history', 'NONE', '2.0'],
      ['OPTIONS /locations/{locationId}/insights/live', 'NONE', '2.0'],
      ['OPTIONS /problems', 'NONE', '2.0'],
      ['OPTIONS /webhook-endpoints', 'NONE', '2.0'],
      ['OPTIONS /webhook-endpoints/{endpointId}', 'NONE', '2.0'],
      ['OPTIONS /webhook-endpoints/{endpointId}/deliveries', 'NONE', '2.0'],
      ['OPTIONS /webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry', 'NONE', '2.0'],
      ['OPTIONS /webhook-endpoints/{endpointId}/test', 'NONE', '2.0'],
      ['OPTIONS /webhook-endpoints/{endpointId}/{segment3}', 'NONE', '2.0'],
      ['OPTIONS /{segment1}', 'NONE', '2.0'],
      ['POST /alert-rules', 'JWT', '2.0'],
      ['POST /ingest-clients', 'JWT', '2.0'],
      ['POST /ingest/{collection}', 'CUSTOM', '2.0'],
      ['POST /locations', 'JWT', '2.0'],
      ['POST /webhook-endpoints', 'JWT', '2.0'],
      ['POST /webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry', 'JWT', '2.0'],
      ['POST /webhook-endpoints/{endpointId}/test', 'JWT', '2.0'],
      ['POST /webhook-endpoints/{endpointId}/{segment3}', 'JWT', '2.0'],
      ['POST /{segment1}', 'JWT', '2.0'],
      ['PUT /alert-rules/{ruleId}', 'JWT', '2.0'],
      ['PUT /locations/{locationId}', 'JWT', '2.0'],
      ['PUT /webhook-endpoints/{endpointId}', 'JWT', '2.0'],
    ]);
    for (const route of api.routes.filter((r) => !open.includes(r.routeKey)))
      expect((route.authorizer ?? route.lambdaAuthorizer)?.identitySource).toEqual(['$request.header.Authorization']);
    for (const key of open) expect(api.routes.find((r) => r.routeKey === key)?.authorizer).toBeUndefined();
  });
});

describe('the deployed service, run from its assets', () => {
  beforeAll(async () => {
    // The custom resource's function puts the index templates in place (what CloudFormation does on
    // create), with the properties the template gives it.
    const resourceId = theOne('Custom::OpenSearchIndexTemplates');
    const properties = resolver.resolve(props(resourceId)) as Json;
    const created = await fn(setupIndicesFunctionId()).invoke<{ PhysicalResourceId: string }>({
      RequestType: 'Create',
      ServiceToken: properties.ServiceToken,
      ResponseURL: 'https://cloudformation-custom-resource-response.lrs.localtest/',
      StackId: `arn:aws:cloudformation:${REGION}:123456789012:stack/${assembly.stackName}/1`,
      RequestId: 'create-1',
      LogicalResourceId: resourceId,
      ResourceType: 'Custom::OpenSearchIndexTemplates',
      ResourceProperties: properties,
    });
    expect(created.PhysicalResourceId).toBe(`index-templates:${PREFIX}`);
    // Then the operator's path of the README: import locations into the stack's table, load documents.
    const dir = join(tmpdir(), `stack-data-${process.pid}`);
    const quiet = { log: () => undefined, error: (line: string) => console.error(line) };
    writeFileSync(`${dir}.locations.json`, JSON.stringify(LOCATIONS));
    writeFileSync(`${dir}.events.ndjson`, [...HISTORY, ...LIVE].map((d) => JSON.stringify(d)).join('\n'));
    expect(
      await importLocationsCli(
        [
          'node',
          'import-locations',
          '--file',
          `${dir}.locations.json`,
          '--table',
          TABLE,
          '--endpoint',
          process.env.DYNAMODB_ENDPOINT!,
          '--region',
          REGION,
        ],
        quiet,
      ),
    ).toBe(0);
    expect(
      await ingestCli(
        [
          'node',
          'ingest',
          '--source',
          'movementEvents',
          '--opensearch-url',
          process.env.OPENSEARCH_URL!,
          '--index-prefix',
          PREFIX,
          `${dir}.events.ndjson`,
        ],
        quiet,
      ),
    ).toBe(0);
    await openSearch.indices.refresh({ index: `${PREFIX}*` });
    rmSync(`${dir}.locations.json`);
    rmSync(`${dir}.events.ndjson`);
  }, 300_000);

  it('created the index templates of the three collections and of their rollups through the custom resource', async () => {
    const { body } = await openSearch.indices.getIndexTemplate({ name: `${PREFIX}*` });
    type IndexTemplate = {
      name: string;
      index_template: { index_patterns: string[]; template: { settings: { index: Json } } };
    };
    const templates = (body as { index_templates: IndexTemplate[] }).index_templates;
    expect(templates.map((t) => [t.name, t.index_template.index_patterns]).sort()).toEqual([
      [`${PREFIX}movement-events`, [`${PREFIX}movement-events-*`]],
      [`${PREFIX}parking-events`, [`${PREFIX}parking-events-*`]],
      [`${PREFIX}parking-lot-stats`, [`${PREFIX}parking-lot-stats-*`]],
      [`${PREFIX}rollup-dirty`, [`${PREFIX}rollup-dirty`]],
      // Each collection's rollups at three levels: 15-minute grains, hours and UTC days.
      ...['movement-events', 'parking-events', 'parking-lot-stats'].flatMap((c) =>
        ['', '-1d', '-1h'].map((level) => [`${PREFIX}rollup-${c}${level}`, [`${PREFIX}rollup-${c}${level}`]]),
      ),
    ]);
    // With thresholds, so that the domain's slow logs record slow searches (all off by default).
    for (const t of templates.filter((t) => !t.name.startsWith(`${PREFIX}rollup-`)))
      expect(t.index_template.template.settings.index).toMatchObject({
        search: { slowlog: { threshold: { query: { warn: '5s', info: '2s' } } } },
      });
  });

  it("GET /locations answers the caller organization's locations", async () => {
    const response = await call('GET', '/locations');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    const [hall, ...rest] = JSON.parse(response.body) as Json[];
    expect(rest).toEqual([]);
    expect(hall).toEqual({
      id: 'hall',
      name: 'hall',
      organizationId: ORG,
      type: 'venue',
      timezone: 'UTC',
      createdBy: null,
      updatedBy: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: hall!.createdAt,
    });
  });

  it("answers live occupancy after the EventBridge rule's target ran: 3 in, 1 out", async () => {
    const rule = props(ruleOf(REFRESH_SCHEDULE));
    expect(rule.ScheduleExpression).toBe('cron(0/5 * * * ? *)');
    const before = await call('GET', '/locations/hall/insights/live', { query: { filter: 'occupancy' } });
    expect(JSON.parse(before.body)).toEqual({ insights: { occupancy: [] } });
    const summary = await fn(refreshFunctionId()).invoke({
      version: '0',
      id: 'e1',
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '123456789012',
      time: new Date().toISOString(),
      region: REGION,
      resources: [resolver.text({ 'Fn::GetAtt': [ruleOf(REFRESH_SCHEDULE), 'Arn'] })],
      detail: {},
    });
    // both organizations' locations
    expect(summary).toMatchObject({ locations: 2, refreshedLocations: 2, failedLocations: 0 });
    const after = await call('GET', '/locations/hall/insights/live', { query: { filter: 'occupancy' } });
    expect(after.status).toBe(200);
    expect(JSON.parse(after.body)).toEqual({
      insights: { occupancy: [{ sensorGroup: { id: 1, name: 'Hall' }, occupancy: 2 }] },
    });
  });

  it("answers the overview of every site: the hall with its live value and today's crossings by the hour", async () => {
    // After the refresh above: 2 people in the hall; today's four crossings in its first UTC hour, nothing a week
    // before.
    const response = await call('GET', '/insights/overview');
    expect([response.status, response.headers['cache-control']]).toEqual([
      200,
      expect.stringMatching(/^private, max-age=\d+$/),
    ]);
    const { locations } = JSON.parse(response.body) as {
      locations: {
        id: string;
        occupancy: unknown;
        today: { from: string; count: number; hourly: number[] };
        lastWeek: { count: number };
      }[];
    };
    expect(
      locations.map((l) => [l.id, l.occupancy, l.today.from, l.today.count, l.today.hourly[0], l.lastWeek.count]),
    ).toEqual([
      [
        'hall',
        // The hall's one group has no capacity: people and groups, no share (docs/locations-and-occupancy.md).
        { people: 2, groups: 1, sensorGroups: [{ sensorGroup: { id: 1, name: 'Hall' }, occupancy: 2 }] },
        new Date(midnight).toISOString(),
        4,
        4,
        0,
      ],
    ]);
  });

  it("answers the occupancy history from the domain, JSON and CSV, and 404 for the other organization's location", async () => {
    // The hall is open all day (UTC): in at 08:00, out at 09:30, in at 10:00 (the 10:00 mark counts before it).
    const query = { filter: 'occupancy', from: '2025-03-03T07:00:00Z', to: '2025-03-03T11:00:00Z', interval: '1h' };
    const json = await call('GET', '/locations/hall/insights/history', { query });
    expect([json.status, json.headers['content-type']]).toEqual([200, 'application/json']);
    expect(JSON.parse(json.body)).toEqual({
      timeZone: 'UTC',
      interval: '1h',
      from: '2025-03-03T07:00:00.000Z',
      to: '2025-03-03T11:00:00.000Z',
      insights: {
        occupancy: [
          {
            sensorGroup: { id: 1, name: 'Hall' },
            buckets: [
              { timestamp: '2025-03-03T07:00:00.000Z', occupancy: 0, peak: 0 },
              { timestamp: '2025-03-03T08:00:00.000Z', occupancy: 1, peak: 1 },
              { timestamp: '2025-03-03T09:00:00.000Z', occupancy: 0, peak: 1 },
              { timestamp: '2025-03-03T10:00:00.000Z', occupancy: 1, peak: 1 },
            ],
          },
        ],
      },
    });
    const csv = await call('GET', '/locations/hall/insights/history', {
      query: { ...query, interval: '30m', from: '2025-03-03T09:00:00Z', to: '2025-03-03T10:00:00Z' },
      headers: { accept: 'text/csv' },
    });
    expect([csv.status, csv.body]).toEqual([
      200,
      'sensorGroupId,sensorGroupName,timestamp,localTime,occupancy,peak,capacity,utilization,peakUtilization\r\n1,Hall,2025-03-03T09:00:00.000Z,2025-03-03T09:00:00+00:00,1,1,,,\r\n1,Hall,2025-03-03T09:30:00.000Z,2025-03-03T09:30:00+00:00,0,0,,,\r\n',
    ]);
    expect((await call('GET', '/locations/elsewhere/insights/history', { query })).status).toBe(404);
  });

  it("deletes, from the retention rule's target, a monthly index older than 25 months and keeps the others", async () => {
    const old = `${PREFIX}movement-events-2019.01`;
    await openSearch.indices.create({ index: old });
    const summary = await fn(retentionFunctionId()).invoke<{ months: number; deleted: string[]; kept: number }>({
      version: '0',
      id: 'e2',
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '123456789012',
      time: new Date().toISOString(),
      region: REGION,
      resources: [resolver.text({ 'Fn::GetAtt': [ruleOf(RETENTION_SCHEDULE), 'Arn'] })],
      detail: {},
    });
    expect(summary.months).toBe(25);
    expect(summary.deleted).toContain(old);
    expect((await openSearch.indices.exists({ index: old })).body).toBe(false);
  });

  it('answers a report as JSON and as CSV', async () => {
    const json = await call('POST', '/reports:query', {
      body: report(),
      headers: { 'content-type': 'application/json' },
    });
    expect([json.status, json.headers['content-type']]).toEqual([200, 'application/json']);
    expect(JSON.parse(json.body)).toEqual(DAILY_BY_LABEL);
    const csv = await call('POST', '/reports:query', {
      body: report(),
      headers: { 'content-type': 'application/json', accept: 'text/csv' },
    });
    expect([csv.status, csv.headers['content-type']]).toEqual([200, 'text/csv; charset=utf-8']);
    expect(csv.body).toBe(DAILY_BY_LABEL_CSV);
  });

  it("answers a report from the rollups once the rebuild rule's target has run, the same as from the documents", async () => {
    const before = await call('POST', '/reports:query', {
      body: report(),
      headers: { 'content-type': 'application/json' },
    });
    expect(before.headers['server-timing']).toMatch(/source;desc="raw"/);
    const event = {
      version: '0',
      id: 'e3',
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '123456789012',
      time: new Date().toISOString(),
      region: REGION,
      resources: [resolver.text({ 'Fn::GetAtt': [ruleOf(ROLLUPS_SCHEDULE), 'Arn'] })],
      detail: {},
    };
    await fn(rollupsFunctionId()).invoke(event);
    const after = await call('POST', '/reports:query', {
      body: report(),
      headers: { 'content-type': 'application/json' },
    });
    expect([after.status, after.headers['server-timing']]).toEqual([
      200,
      expect.stringMatching(/source;desc="rollup"/),
    ]);
    expect(JSON.parse(after.body)).toEqual(DAILY_BY_LABEL);
  });

  it('answers a split report through the state machine, slice by slice in the worker, as the unsplit one', async () => {
    const split = await call('POST', '/reports:query', {
      body: report({ splitInterval: '1d' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(split.status).toBe(200);
    expect(JSON.parse(split.body)).toEqual(DAILY_BY_LABEL);
    const [execution] = stepFunctions.executions;
    expect(execution).toMatchObject({ status: 'SUCCEEDED', input: { slices: [{}, {}, {}] } });
  });

  it('answers a client mistake with problem+json naming the request, not a 500', async () => {
    const response = await call('POST', '/reports:query', {
      body: '{"aggregations": []}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(response.headers['x-request-id']).toBe(response.requestId);
    expect((JSON.parse(response.body) as Json).requestId).toBe(response.requestId);
    // The function's log line of the refusal carries API Gateway's request id as its correlation id.
    const logged = fn(api.routes.find((r) => r.routeKey === 'POST /{segment1}')!.functionId).logs.filter((l) =>
      l.includes('request refused'),
    );
    expect(logged.some((l) => l.includes(`"correlation_id":"${response.requestId}"`))).toBe(true);
  });

  it('answers a report compressed when asked (gzip or br), base64 through API Gateway, the same JSON once decoded', async () => {
    // Hourly over the three days: 72 buckets (about 3 kB of JSON, over the 1 KiB threshold), the five
    // hall events in their hours, the other hours timestamp-only.
    const hourly = report({
      aggregations: [
        { type: 'dateHistogram', interval: '1h' },
        { type: 'terms', field: 'label' },
      ],
    });
    const counts: Record<string, Json> = {
      '2025-03-03T08': { person: 1 },
      '2025-03-03T09': { person: 1 },
      '2025-03-03T10': { car: 1 },
      '2025-03-04T12': { person: 1 },
      '2025-03-05T23': { car: 1 },
    };
    const expected = Array.from({ length: 72 }, (_, h) => {
      const timestamp = new Date(Date.UTC(2025, 2, 3, h)).toISOString();
      return { timestamp, ...counts[timestamp.slice(0, 13)] };
    });
    const plain = await call('POST', '/reports:query', {
      body: hourly,
      headers: { 'content-type': 'application/json' },
    });
    expect([plain.status, plain.headers['content-encoding'], plain.headers.vary]).toEqual([
      200,
      undefined,
      'Accept, Accept-Encoding',
    ]);
    expect(JSON.parse(plain.body)).toEqual(expected);
    const gzip = await call('POST', '/reports:query', {
      body: hourly,
      headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' },
    });
    expect([gzip.status, gzip.headers['content-encoding'], gzip.headers.vary]).toEqual([
      200,
      'gzip',
      'Accept, Accept-Encoding',
    ]);
    expect(gunzipSync(gzip.bytes).toString('utf8')).toBe(plain.body);
    expect(gzip.bytes.length).toBeLessThan(plain.bytes.length / 4);
    const br = await call('POST', '/reports:query', {
      body: hourly,
      headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.bytes).toString('utf8')).toBe(plain.body);
  });

  it('answers GET /locations again with 304 and no body when If-None-Match names its ETag', async () => {
    const first = await call('GET', '/locations');
    expect(first.headers.etag).toMatch(/^W\/"[\w-]{22}"$/);
    const again = await call('GET', '/locations', { headers: { 'if-none-match': first.headers.etag! } });
    expect([again.status, again.body, again.headers.etag, again.headers['cache-control']]).toEqual([
      304,
      '',
      first.headers.etag,
      'private, no-cache',
    ]);
  });

  it('answers GET /health without a token: the domain answers a search and the table a read', async () => {
    const response = await api.request({ method: 'GET', path: '/health', claims: {} });
    expect([response.status, response.headers['cache-control'], response.headers['x-request-id']]).toEqual([
      200,
      'no-store',
      response.requestId,
    ]);
    expect(JSON.parse(response.body)).toEqual({ status: 'ok', checks: { engine: 'ok', table: 'ok' } });
  });

  it('answers GET /problems without a token: the page the type of every problem points to, an anchor per type', async () => {
    const response = await api.request({ method: 'GET', path: '/problems', claims: {} });
    expect([response.status, response.headers['content-type'], response.headers['cache-control']]).toEqual([
      200,
      'text/html; charset=utf-8',
      'public, max-age=3600',
    ]);
    const refused = await call('POST', '/reports:query', {
      body: JSON.stringify({ aggregations: [] }),
      headers: { 'content-type': 'application/json' },
    });
    const type = (JSON.parse(refused.body) as { type: string }).type;
    expect(type).toBe('/problems#validation');
    expect(response.body).toContain(`<section id="${type.split('#')[1]}">`);
  });

  it('answers a CORS preflight without a token 204 with Allow, from the function of the path, never 401', async () => {
    const preflight = {
      origin: 'https://elsewhere.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    };
    const [report, locations] = await Promise.all([
      api.request({ method: 'OPTIONS', path: '/reports:query', claims: {}, headers: preflight }),
      api.request({
        method: 'OPTIONS',
        path: '/locations',
        claims: {},
        headers: { ...preflight, 'access-control-request-method': 'GET' },
      }),
    ]);
    expect([report.status, report.headers.allow, report.body, report.headers['x-request-id']]).toEqual([
      204,
      'POST, OPTIONS',
      '',
      report.requestId,
    ]);
    expect([locations.status, locations.headers.allow]).toEqual([204, 'GET, POST, HEAD, OPTIONS']);
  });

  it('answers the custom method percent-encoded too, and 404 for any other POST the path variable lets through', async () => {
    const encoded = await call('POST', '/reports%3Aquery', {
      body: report(),
      headers: { 'content-type': 'application/json' },
    });
    expect([encoded.status, JSON.parse(encoded.body)]).toEqual([200, DAILY_BY_LABEL]);
    const other = await call('POST', '/reports:delete', {
      body: report(),
      headers: { 'content-type': 'application/json' },
    });
    expect([other.status, other.headers['content-type'], (JSON.parse(other.body) as Json).status]).toEqual([
      404,
      'application/problem+json',
      404,
    ]);
  });

  /** The stack as the machine-client and administration tests see it. */
  const underTest = {
    api: () => api,
    fn,
    issuer: () => cognitoIssuer,
    preTokenFunctionId,
    refreshOccupancy: () =>
      fn(refreshFunctionId()).invoke({
        version: '0',
        id: 'e2',
        'detail-type': 'Scheduled Event',
        source: 'aws.events',
        account: '123456789012',
        time: new Date().toISOString(),
        region: REGION,
        resources: [],
        detail: {},
      }),
    call,
    /**
     * What a second does in AWS: the indices' refresh, and the report functions' kept rollup state
     * (docs/rollups.md, "Reading") read afresh. That state is per process: a report function that
     * read it in the last second does not see another function's dirty marks until it expires.
     */
    refreshIndices: async () => {
      await openSearch.indices.refresh({ index: `${PREFIX}*` });
      await new Promise((resolve) => setTimeout(resolve, ROLLUP_STATE_TTL_MS));
    },
    table: TABLE,
    region: REGION,
    userPoolId: USER_POOL_ID,
    org: ORG,
    otherOrg: OTHER_ORG,
    crossing,
    today,
  };
  machineClientTests(underTest);
  administrationTests({
    ...underTest,
    invocations: () => lambdaInvoke.invocations,
    cognito: () => cognitoControl,
    refreshFunctionId,
  });
  webhookTests({
    call,
    invoke: (id, event) => fn(id).invoke(event),
    sent: () => sqs.sent,
    deliveryQueueUrl: () => resolver.text({ Ref: deliveryQueueId() }),
    deliverFunctionId,
  });

  it('traces the calls the functions make: X-Ray subsegments of DynamoDB, Step Functions and the domain', () => {
    // Each UDP datagram is a header line, then one segment or subsegment document.
    const names = new Set(traces.map((t) => (JSON.parse(t.split('\n')[1] ?? '{}') as { name?: string }).name));
    expect([...names].filter((n) => ['DynamoDB', 'SFN', new URL(tls.url).hostname].includes(n!)).sort()).toEqual(
      ['DynamoDB', 'SFN', new URL(tls.url).hostname].sort(),
    );
  });
});

/** The function the user pool calls before it issues a token. */
function preTokenFunctionId(): string {
  const config = (
    props(theOne('AWS::Cognito::UserPool')).LambdaConfig as {
      PreTokenGenerationConfig: { LambdaArn: unknown; LambdaVersion: string };
    }
  ).PreTokenGenerationConfig;
  expect(config.LambdaVersion).toBe('V3_0');
  return functionIdOfArn(config.LambdaArn);
}

/** The function the state machine's Map task invokes. */
function workerFunctionId(): string {
  const definition = JSON.parse(resolver.text(props(theOne('AWS::StepFunctions::StateMachine')).DefinitionString)) as {
    States: Record<string, { ItemProcessor?: { States: Record<string, { Resource?: string }> } }>;
  };
  const task = Object.values(definition.States)
    .flatMap((s) => Object.values(s.ItemProcessor?.States ?? {}))
    .find((s) => s.Resource);
  return functionIdOfArn(task?.Resource);
}

/** The queue the delivery function reads (its event source mapping's). */
function deliveryQueueId(): string {
  const mapping = props(theOne('AWS::Lambda::EventSourceMapping'));
  return (mapping.EventSourceArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
}

/** The function the delivery queue's event source mapping invokes. */
function deliverFunctionId(): string {
  return (props(theOne('AWS::Lambda::EventSourceMapping')).FunctionName as { Ref: string }).Ref;
}
