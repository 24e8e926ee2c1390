import { Match, type Template } from 'aws-cdk-lib/assertions';
import { ROUTES } from '../../../functions/routes';

/** One function per route family (functions/routes.ts): the locations family has five routes, the gateways' three. */
const FAMILIES = new Set(ROUTES.map((r) => r.handler)).size;
import {
  actionsOf,
  functionId,
  missingHandlers,
  removeSynthOutputs,
  render,
  resourcesOf,
  resourcesOfStatement,
  stateMachineDefinition,
  statementsOfFunction,
  statementsOfRole,
  synthService,
} from './synth';

/** Searching is an HTTP POST to `<index pattern>/_search`; nothing else is granted to readers. */
const OPENSEARCH_SEARCH = ['es:ESHttpPost'];
const LOG_WRITE = ['logs:CreateLogStream', 'logs:PutLogEvents'];
const XRAY = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];
const INDEX_PATTERNS = ['movement-events-*', 'parking-lot-stats-*', 'parking-events-*'];
const ROLLUP_INDICES = [
  ...['movement-events', 'parking-lot-stats', 'parking-events'].flatMap((b) => [
    `rollup-${b}`,
    `rollup-${b}-1h`,
    `rollup-${b}-1d`,
  ]),
  'rollup-dirty',
];

const QUERY = 'POST /reports:query';
const LIST = 'GET /locations';
const LIVE = 'GET /locations/{locationId}/insights/live';
const HEALTH = 'GET /health';
const INGEST = 'POST /ingest/{collection}';
const REFRESH = /^Refreshes the live occupancy/;
const WORKER = /^Runs one slice/;
const SETUP = /^Creates or updates the OpenSearch index templates/;

/** The actions of a function's role besides its own logs and X-Ray, which every function has. */
const ownActions = (template: Template, description: string | RegExp) =>
  actionsOf(statementsOfFunction(template, functionId(template, description))).filter(
    (a) => !LOG_WRITE.includes(a) && !XRAY.includes(a),
  );

const resourcesFor = (template: Template, description: string | RegExp, actionPrefix: string) =>
  statementsOfFunction(template, functionId(template, description))
    .filter((s) => actionsOf([s]).some((a) => a.startsWith(actionPrefix)))
    .flatMap(resourcesOfStatement)
    .sort();

afterAll(removeSynthOutputs);

describe('the service stack with the default context (cdk.json)', () => {
  let template: Template;

  beforeAll(() => {
    ({ template } = synthService());
  });

  // A handler module that is not written yet is replaced by a stub so that everything else is still
  // checked; it shows up here as a todo until it exists.
  for (const name of missingHandlers()) it.todo(`builds functions/${name}.ts (not written yet: a stub stands in)`);

  describe('functions', () => {
    it('runs every service function on Node.js 22, ARM64, with active tracing, its own log group and source maps', () => {
      const ours = Object.values(resourcesOf(template, 'AWS::Lambda::Function')).filter(
        (r) =>
          (r.Properties as { Handler?: string }).Handler === 'index.handler' &&
          !/^(nodejs24|python)/.test(String((r.Properties as { Runtime?: string }).Runtime)),
      );
      // the route families', refresh, worker, index setup, pre-token trigger, ingest authorizer, retention job,
      // snapshot job, rollup rebuild, webhook delivery
      expect(ours).toHaveLength(FAMILIES + 9);
      for (const fn of ours) {
        expect(fn.Properties).toMatchObject({
          Runtime: 'nodejs22.x',
          Architectures: ['arm64'],
          TracingConfig: { Mode: 'Active' },
          LoggingConfig: { LogGroup: expect.anything() },
          Environment: {
            Variables: expect.objectContaining({
              NODE_OPTIONS: '--enable-source-maps',
              POWERTOOLS_SERVICE_NAME: 'location-reporting',
            }),
          },
        });
      }
    });

    it('keeps function logs for the configured 30 days', () => {
      template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
      for (const group of Object.values(resourcesOf(template, 'AWS::Logs::LogGroup'))) {
        expect((group.Properties as { RetentionInDays?: number }).RetentionInDays).toBe(30);
      }
    });

    it('tells the query function where the domain, the state machine and the slice results are, and which claim holds the organization', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: QUERY,
        Timeout: 29,
        Environment: {
          Variables: Match.objectLike({
            OPENSEARCH_URL: Match.anyValue(),
            OPENSEARCH_AUTH: 'sigv4',
            OPENSEARCH_INDEX_PREFIX: '',
            REPORT_TERMS_CAP: '1000',
            ORGANIZATION_CLAIM: 'custom:organizationId',
            SPLIT_STATE_MACHINE_ARN: Match.anyValue(),
            SLICE_RESULTS_BUCKET: Match.anyValue(),
          }),
        },
      });
    });

    it('gives the location endpoints the table name', () => {
      for (const description of [LIST, LIVE]) {
        template.hasResourceProperties('AWS::Lambda::Function', {
          Description: description,
          Environment: {
            Variables: Match.objectLike({ TABLE_NAME: Match.anyValue(), ORGANIZATION_CLAIM: 'custom:organizationId' }),
          },
        });
      }
    });
  });

  describe('least privilege', () => {
    it('lets every function write only to its own log group, with no AWS managed policy on its role', () => {
      for (const description of [QUERY, LIST, LIVE, HEALTH, REFRESH, WORKER, SETUP]) {
        const id = functionId(template, description);
        const logs = statementsOfFunction(template, id).filter((s) =>
          actionsOf([s]).some((a) => a.startsWith('logs:')),
        );
        expect(logs).toHaveLength(1);
        expect(actionsOf(logs)).toEqual(LOG_WRITE);
        const fn = resourcesOf(template, 'AWS::Lambda::Function')[id]!;
        const logGroup = render((fn.Properties as { LoggingConfig: { LogGroup: unknown } }).LoggingConfig.LogGroup);
        expect(resourcesOfStatement(logs[0]!)).toEqual([`${logGroup}.Arn`]);
        const roleId = render((fn.Properties as { Role: unknown }).Role).replace(/\.Arn$/, '');
        const role = resourcesOf(template, 'AWS::IAM::Role')[roleId]!;
        expect((role.Properties as { ManagedPolicyArns?: unknown }).ManagedPolicyArns).toBeUndefined();
      }
    });

    it('lets the query function search the report indices, start split executions and read slice results, nothing else', () => {
      expect(ownActions(template, QUERY)).toEqual([...OPENSEARCH_SEARCH, 's3:GetObject', 'states:StartSyncExecution']);
      const domain = domainId(template);
      expect(resourcesFor(template, QUERY, 'es:')).toEqual(
        [...INDEX_PATTERNS, ...ROLLUP_INDICES].map((p) => `${domain}.Arn/${p}/_search`).sort(),
      );
      expect(resourcesFor(template, QUERY, 'states:')).toEqual([stateMachineId(template)]);
    });

    it('lets the ingest function send _bulk and _mget to the report indices and search them, and use the table, nothing else', () => {
      const domain = domainId(template);
      expect(ownActions(template, INGEST).filter((a) => !a.startsWith('dynamodb:'))).toEqual([
        'es:ESHttpPost',
        'es:ESHttpPut',
      ]);
      // ...and the rollups' dirty grains (docs/rollups.md).
      expect(resourcesFor(template, INGEST, 'es:ESHttpPut')).toEqual(
        [...INDEX_PATTERNS, 'rollup-dirty'].map((p) => `${domain}.Arn/${p}/_bulk`).sort(),
      );
      expect(resourcesFor(template, INGEST, 'es:ESHttpPost')).toEqual(
        INDEX_PATTERNS.flatMap((p) => ['_mget', '_search'].map((e) => `${domain}.Arn/${p}/${e}`)).sort(),
      );
      expect(resourcesFor(template, INGEST, 'dynamodb:').every((r) => r.startsWith(tableId(template)))).toBe(true);
    });

    it('lets the readers of the report indices search them and nothing else', () => {
      const domain = domainId(template);
      for (const description of [QUERY, REFRESH, WORKER]) {
        expect(ownActions(template, description).filter((a) => a.startsWith('es:'))).toEqual(OPENSEARCH_SEARCH);
        // The report functions read the rollups too (docs/rollups.md); the refresh reads documents only.
        const indices = description === REFRESH ? INDEX_PATTERNS : [...INDEX_PATTERNS, ...ROLLUP_INDICES];
        expect(resourcesFor(template, description, 'es:')).toEqual(
          indices.map((p) => `${domain}.Arn/${p}/_search`).sort(),
        );
      }
    });

    it("lets the location endpoints read the table, and live insights search the cameras' and lots' indices, nothing else", () => {
      for (const description of [LIST, LIVE]) {
        const actions = ownActions(template, description);
        expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
        expect(actions).not.toEqual(expect.arrayContaining(['dynamodb:PutItem']));
        expect(actions.filter((a) => /Put|Update|Delete|Write/.test(a))).toEqual([]);
        expect(resourcesFor(template, description, 'dynamodb:').every((r) => r.startsWith(tableId(template)))).toBe(
          true,
        );
      }
      expect(ownActions(template, LIST).every((a) => a.startsWith('dynamodb:'))).toBe(true);
      // filter=health (docs/sensor-health.md) counts movement events and parking lot stats, rollups included.
      expect(ownActions(template, LIVE).filter((a) => !a.startsWith('dynamodb:'))).toEqual(OPENSEARCH_SEARCH);
      const domain = domainId(template);
      expect(resourcesFor(template, LIVE, 'es:')).toEqual(
        [
          'movement-events-*',
          'parking-lot-stats-*',
          'rollup-movement-events',
          'rollup-movement-events-1h',
          'rollup-movement-events-1d',
          'rollup-parking-lot-stats',
          'rollup-parking-lot-stats-1h',
          'rollup-parking-lot-stats-1d',
          'rollup-dirty',
        ]
          .map((p) => `${domain}.Arn/${p}/_search`)
          .sort(),
      );
    });

    it('lets the health function run one search on the movement event indices and read one item, nothing else', () => {
      expect(ownActions(template, HEALTH)).toEqual(['dynamodb:GetItem', 'es:ESHttpPost']);
      expect(resourcesFor(template, HEALTH, 'es:')).toEqual([`${domainId(template)}.Arn/movement-events-*/_search`]);
      expect(resourcesFor(template, HEALTH, 'dynamodb:')).toEqual([`${tableId(template)}.Arn`]);
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: HEALTH,
        Environment: {
          Variables: Match.objectLike({
            TABLE_NAME: Match.anyValue(),
            OPENSEARCH_URL: Match.anyValue(),
            OPENSEARCH_AUTH: 'sigv4',
          }),
        },
      });
    });

    it('lets the refresh job read and write the table, search the indices and send its failures to its dead-letter queue, nothing else', () => {
      const actions = ownActions(template, REFRESH);
      expect(actions).toEqual(
        expect.arrayContaining([...OPENSEARCH_SEARCH, 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:Query']),
      );
      expect(actions.filter((a) => !a.startsWith('dynamodb:') && !a.startsWith('es:'))).toEqual([
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:SendMessage',
      ]);
      expect(actions.filter((a) => a.startsWith('es:'))).toEqual(OPENSEARCH_SEARCH);
      const deadLetters = Object.keys(resourcesOf(template, 'AWS::SQS::Queue')).filter((id) =>
        id.includes('RefreshDeadLetters'),
      );
      const deliveries = Object.keys(resourcesOf(template, 'AWS::SQS::Queue')).filter((id) =>
        /WebhooksDeliveries[0-9A-F]/.test(id),
      );
      expect(resourcesFor(template, REFRESH, 'sqs:')).toEqual([`${deadLetters[0]}.Arn`, `${deliveries[0]}.Arn`].sort());
    });

    it('lets the slice worker search the indices and put slice results, nothing else', () => {
      expect(ownActions(template, WORKER)).toEqual([...OPENSEARCH_SEARCH, 's3:PutObject']);
      expect(resourcesFor(template, WORKER, 's3:')).toEqual([`${bucketId(template)}.Arn/*`]);
    });

    it('lets the index setup put index templates, create the rollup indices, raise replicas and install the retention ISM policy only', () => {
      const SERVICE_PATTERNS = [
        ...INDEX_PATTERNS,
        ...['movement-events', 'parking-lot-stats', 'parking-events'].flatMap((b) => [
          `rollup-${b}`,
          `rollup-${b}-1h`,
          `rollup-${b}-1d`,
        ]),
        'rollup-dirty',
      ];
      expect(ownActions(template, SETUP)).toEqual([
        'es:ESHttpDelete',
        'es:ESHttpGet',
        'es:ESHttpHead',
        'es:ESHttpPost',
        'es:ESHttpPut',
      ]);
      const domain = `${domainId(template)}.Arn`;
      expect(resourcesFor(template, SETUP, 'es:ESHttpHead')).toEqual(
        [
          'rollup-dirty',
          ...['movement-events', 'parking-lot-stats', 'parking-events'].flatMap((b) => [
            `rollup-${b}`,
            `rollup-${b}-1h`,
            `rollup-${b}-1d`,
          ]),
        ]
          .map((index) => `${domain}/${index}`)
          .sort(),
      );
      expect(resourcesFor(template, SETUP, 'es:')).toEqual(
        [
          ...resourcesFor(template, SETUP, 'es:ESHttpHead'),
          // raiseReplicas: each pattern's replica counts, and each index of a pattern with fewer.
          ...SERVICE_PATTERNS.flatMap((p) => [
            `${domain}/${p}/_settings/index.number_of_replicas`,
            `${domain}/${p}/_settings`,
          ]),
          `${domain}/_index_template/*`,
          `${domain}/_plugins/_ism/policies/retention`,
          ...INDEX_PATTERNS.flatMap((p) =>
            ['add', 'change_policy', 'remove'].map((call) => `${domain}/_plugins/_ism/${call}/${p}`),
          ),
        ].sort(),
      );
    });

    it('lets the state machine invoke the slice worker and nothing else but its logs and traces', () => {
      const machine = Object.values(resourcesOf(template, 'AWS::StepFunctions::StateMachine'))[0]!;
      const roleId = render((machine.Properties as { RoleArn: unknown }).RoleArn).replace(/\.Arn$/, '');
      const statements = statementsOfRole(template, roleId);
      const worker = functionId(template, WORKER);
      const invoke = statements.filter((s) => actionsOf([s]).includes('lambda:InvokeFunction'));
      expect(invoke.flatMap(resourcesOfStatement).sort()).toEqual([`${worker}.Arn`, `${worker}.Arn:*`]);
      expect(actionsOf(statements).filter((a) => !a.startsWith('logs:') && !a.startsWith('xray:'))).toEqual([
        'lambda:InvokeFunction',
      ]);
    });
  });

  describe('api', () => {
    it('routes every route of functions/routes.ts and an ANY route per path (405 and HEAD) behind the JWT authorizer but /health, /problems and the ingest path, an OPTIONS route per path without one (a CORS preflight has no token), the custom method as a path variable', () => {
      const routes = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route')).map(
        (r) => r.Properties as { RouteKey: string; AuthorizationType: string },
      );
      expect(routes.map((r) => [r.RouteKey, r.AuthorizationType]).sort()).toEqual([
        ['ANY /alert-rules', 'JWT'],
        ['ANY /alert-rules/{ruleId}', 'JWT'],
        ['ANY /health', 'NONE'],
        ['ANY /ingest-clients', 'JWT'],
        ['ANY /ingest-clients/{clientId}', 'JWT'],
        ['ANY /ingest/{collection}', 'CUSTOM'],
        ['ANY /insights/overview', 'JWT'],
        ['ANY /locations', 'JWT'],
        ['ANY /locations/{locationId}', 'JWT'],
        ['ANY /locations/{locationId}/changes', 'JWT'],
        ['ANY /locations/{locationId}/insights/history', 'JWT'],
        ['ANY /locations/{locationId}/insights/live', 'JWT'],
        ['ANY /problems', 'NONE'],
        ['ANY /webhook-endpoints', 'JWT'],
        ['ANY /webhook-endpoints/{endpointId}', 'JWT'],
        ['ANY /webhook-endpoints/{endpointId}/deliveries', 'JWT'],
        ['ANY /webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry', 'JWT'],
        ['ANY /webhook-endpoints/{endpointId}/test', 'JWT'],
        ['ANY /webhook-endpoints/{endpointId}/{segment3}', 'JWT'],
        ['ANY /{segment1}', 'JWT'],
        ['DELETE /alert-rules/{ruleId}', 'JWT'],
        ['DELETE /ingest-clients/{clientId}', 'JWT'],
        ['DELETE /locations/{locationId}', 'JWT'],
        ['DELETE /webhook-endpoints/{endpointId}', 'JWT'],
        ['GET /alert-rules', 'JWT'],
        ['GET /alert-rules/{ruleId}', 'JWT'],
        ['GET /health', 'NONE'],
        ['GET /ingest-clients', 'JWT'],
        ['GET /insights/overview', 'JWT'],
        ['GET /locations', 'JWT'],
        ['GET /locations/{locationId}', 'JWT'],
        ['GET /locations/{locationId}/changes', 'JWT'],
        ['GET /locations/{locationId}/insights/history', 'JWT'],
        ['GET /locations/{locationId}/insights/live', 'JWT'],
        ['GET /problems', 'NONE'],
        ['GET /webhook-endpoints', 'JWT'],
        ['GET /webhook-endpoints/{endpointId}', 'JWT'],
        ['GET /webhook-endpoints/{endpointId}/deliveries', 'JWT'],
        ['OPTIONS /alert-rules', 'NONE'],
        ['OPTIONS /alert-rules/{ruleId}', 'NONE'],
        ['OPTIONS /health', 'NONE'],
        ['OPTIONS /ingest-clients', 'NONE'],
        ['OPTIONS /ingest-clients/{clientId}', 'NONE'],
        ['OPTIONS /ingest/{collection}', 'NONE'],
        ['OPTIONS /insights/overview', 'NONE'],
        ['OPTIONS /locations', 'NONE'],
        ['OPTIONS /locations/{locationId}', 'NONE'],
        ['OPTIONS /locations/{locationId}/changes', 'NONE'],
        ['OPTIONS /locations/{locationId}/insights/history', 'NONE'],
        ['OPTIONS /locations/{locationId}/insights/live', 'NONE'],
        ['OPTIONS /problems', 'NONE'],
        ['OPTIONS /webhook-endpoints', 'NONE'],
        ['OPTIONS /webhook-endpoints/{endpointId}', 'NONE'],
        ['OPTIONS /webhook-endpoints/{endpointId}/deliveries', 'NONE'],
        ['OPTIONS /webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry', 'NONE'],
        ['OPTIONS /webhook-endpoints/{endpointId}/test', 'NONE'],
        ['OPTIONS /webhook-endpoints/{endpointId}/{segment3}', 'NONE'],
        ['OPTIONS /{segment1}', 'NONE'],
        ['POST /alert-rules', 'JWT'],
        ['POST /ingest-clients', 'JWT'],
        ['POST /ingest/{collection}', 'CUSTOM'],
        ['POST /locations', 'JWT'],
        ['POST /webhook-endpoints', 'JWT'],
        ['POST /webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry', 'JWT'],
        ['POST /webhook-endpoints/{endpointId}/test', 'JWT'],
        ['POST /webhook-endpoints/{endpointId}/{segment3}', 'JWT'],
        ['POST /{segment1}', 'JWT'],
        ['PUT /alert-rules/{ruleId}', 'JWT'],
        ['PUT /locations/{locationId}', 'JWT'],
        ['PUT /webhook-endpoints/{endpointId}', 'JWT'],
      ]);
    });

    it('sends the ANY and OPTIONS routes of each path to the function of its first route (GET /locations: list-locations, though POST /locations is the locations family)', () => {
      const integrations = resourcesOf(template, 'AWS::ApiGatewayV2::Integration');
      const fnOf = (target: unknown) => {
        const id = JSON.stringify(target).match(/"Ref":"([^"]+)"/)?.[1] as string;
        return JSON.stringify((integrations[id]!.Properties as { IntegrationUri: unknown }).IntegrationUri);
      };
      const routes = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route')).map(
        (r) => r.Properties as { RouteKey: string; Target: unknown },
      );
      const byKey = new Map(routes.map((r) => [r.RouteKey, fnOf(r.Target)]));
      for (const [key, fn] of byKey) {
        const [method, path] = key.split(' ');
        if (method !== 'ANY' && method !== 'OPTIONS') continue;
        const own = [...byKey].filter(([k]) => !/^(ANY|OPTIONS) /.test(k) && k.endsWith(` ${path}`)).map(([, f]) => f);
        expect({ key, same: own.length > 0 && own.includes(fn) }).toEqual({ key, same: true });
      }
      // The one path served by two families: its ANY and OPTIONS go where GET goes, not to POST's function.
      expect([byKey.get('ANY /locations'), byKey.get('OPTIONS /locations')]).toEqual([
        byKey.get('GET /locations'),
        byKey.get('GET /locations'),
      ]);
      expect(byKey.get('POST /locations')).not.toBe(byKey.get('GET /locations'));
    });

    it('throttles the report route (10 requests per second, bursts of 20) and the ingest route (20, bursts of 40) apart from the stage, and the routes without a token, /health, /problems and OPTIONS (5, bursts of 10)', () => {
      template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        RouteSettings: {
          'POST /{segment1}': { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
          'POST /ingest/{collection}': { ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 },
          'GET /health': { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
          'GET /problems': { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
          'ANY /health': { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
          'ANY /problems': { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
          'OPTIONS /locations': { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
          'OPTIONS /{segment1}': { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
          'OPTIONS /ingest/{collection}': { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
          'OPTIONS /insights/overview': { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
        },
      });
    });

    it('trusts ID tokens of the stack’s Cognito user pool and its app clients (the first, the explorer’s)', () => {
      template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
        AuthorizerType: 'JWT',
        IdentitySource: ['$request.header.Authorization'],
        JwtConfiguration: {
          Audience: [
            { Ref: Match.stringLikeRegexp('UserPoolClient') },
            { Ref: Match.stringLikeRegexp('UserPoolExplorerClient') },
          ],
          Issuer: Match.objectLike({
            'Fn::Join': Match.arrayWith([Match.arrayWith([Match.stringLikeRegexp('https://cognito-idp\\.')])]),
          }),
        },
      });
    });

    it('gives users an immutable organizationId that their app client can read but never write', () => {
      template.hasResourceProperties('AWS::Cognito::UserPool', {
        AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
        Schema: Match.arrayWith([
          Match.objectLike({ Name: 'organizationId', AttributeDataType: 'String', Mutable: false }),
        ]),
        Policies: { PasswordPolicy: Match.objectLike({ MinimumLength: 12, RequireSymbols: true }) },
      });
      template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
        ReadAttributes: Match.arrayWith(['custom:organizationId']),
        WriteAttributes: ['email'],
        ExplicitAuthFlows: Match.arrayWith(['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH']),
      });
    });

    it('has the resource server lrs with the scope ingest, a domain for its token endpoint, and outputs the token URL', () => {
      template.hasResourceProperties('AWS::Cognito::UserPoolResourceServer', {
        Identifier: 'lrs',
        Scopes: [Match.objectLike({ ScopeName: 'ingest' })],
      });
      template.hasResourceProperties('AWS::Cognito::UserPoolDomain', {
        Domain: { 'Fn::Join': ['', ['locationreporting-dev-', { Ref: 'AWS::AccountId' }]] },
      });
      const domainId = Object.keys(resourcesOf(template, 'AWS::Cognito::UserPoolDomain'))[0]!;
      const outputs = (template.toJSON() as { Outputs: Record<string, { Value: unknown }> }).Outputs;
      expect(render(outputs.TokenUrl!.Value)).toBe(
        `https://${domainId}.auth.AWS::Region.amazoncognito.com/oauth2/token`,
      );
      // No machine client in the template: each is created at run time (bin/ingest-client.ts).
      expect(
        Object.values(resourcesOf(template, 'AWS::Cognito::UserPoolClient')).filter((c) =>
          JSON.stringify(c).includes('client_credentials'),
        ),
      ).toEqual([]);
    });

    it('runs the pre-token-generation trigger with the V3_0 event on the Essentials plan, reading one item of the table', () => {
      const trigger = functionId(template, /^Adds the organization of a machine client/);
      template.hasResourceProperties('AWS::Cognito::UserPool', {
        UserPoolTier: 'ESSENTIALS',
        LambdaConfig: {
          PreTokenGenerationConfig: { LambdaArn: { 'Fn::GetAtt': [trigger, 'Arn'] }, LambdaVersion: 'V3_0' },
        },
      });
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: Match.stringLikeRegexp('^Adds the organization'),
        Timeout: 5,
        Environment: {
          Variables: Match.objectLike({ ORGANIZATION_CLAIM: 'custom:organizationId', TABLE_NAME: Match.anyValue() }),
        },
      });
      expect(ownActions(template, /^Adds the organization of a machine client/)).toEqual(['dynamodb:GetItem']);
    });

    it('authorizes the ingest route with its Lambda authorizer (simple responses, cached 5 minutes per token), which reads one item and knows the issuer', () => {
      const authorizerFn = functionId(template, /^Authorizes POST \/ingest/);
      template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
        AuthorizerType: 'REQUEST',
        AuthorizerPayloadFormatVersion: '2.0',
        EnableSimpleResponses: true,
        IdentitySource: ['$request.header.Authorization'],
        AuthorizerResultTtlInSeconds: 300,
        AuthorizerUri: Match.objectLike({
          'Fn::Join': Match.arrayWith([Match.arrayWith([{ 'Fn::GetAtt': [authorizerFn, 'Arn'] }])]),
        }),
      });
      const pool = Object.keys(resourcesOf(template, 'AWS::Cognito::UserPool'))[0]!;
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: Match.stringLikeRegexp('^Authorizes POST'),
        Environment: { Variables: Match.objectLike({ JWT_ISSUER: { 'Fn::GetAtt': [pool, 'ProviderURL'] } }) },
      });
      expect(ownActions(template, /^Authorizes POST \/ingest/)).toEqual(['dynamodb:GetItem']);
    });

    it('throttles the stage and writes JSON access logs', () => {
      template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        StageName: '$default',
        AutoDeploy: true,
        DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
        AccessLogSettings: {
          DestinationArn: Match.anyValue(),
          Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"'),
        },
      });
    });

    it('allows the configured CORS origins, the administration API’s PUT and DELETE, If-None-Match and If-Match, and exposes the report headers (Server-Timing too), the request id, the ETag and a creation’s Location', () => {
      template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
        ProtocolType: 'HTTP',
        CorsConfiguration: {
          AllowOrigins: ['http://localhost:3000'],
          AllowMethods: ['GET', 'POST', 'PUT', 'DELETE'],
          AllowHeaders: ['authorization', 'content-type', 'accept', 'if-none-match', 'if-match'],
          ExposeHeaders: [
            'x-report-truncated',
            'deprecation',
            'retry-after',
            'x-request-id',
            'etag',
            'server-timing',
            'location',
          ],
        },
      });
    });
  });

  describe('reporting', () => {
    it('runs an encrypted, HTTPS-only OpenSearch 2.19 domain with no access policy (IAM identity policies and SigV4 only)', () => {
      template.hasResourceProperties('AWS::OpenSearchService::Domain', {
        EngineVersion: 'OpenSearch_2.19',
        EncryptionAtRestOptions: { Enabled: true },
        NodeToNodeEncryptionOptions: { Enabled: true },
        DomainEndpointOptions: { EnforceHTTPS: true, TLSSecurityPolicy: 'Policy-Min-TLS-1-2-2019-07' },
        ClusterConfig: Match.objectLike({
          InstanceCount: 1,
          InstanceType: 't3.small.search',
          ZoneAwarenessEnabled: false,
        }),
        EBSOptions: Match.objectLike({ EBSEnabled: true, VolumeSize: 10, VolumeType: 'gp3' }),
        LogPublishingOptions: {
          SEARCH_SLOW_LOGS: Match.objectLike({ Enabled: true }),
          INDEX_SLOW_LOGS: Match.objectLike({ Enabled: true }),
          ES_APPLICATION_LOGS: Match.objectLike({ Enabled: true }),
        },
        AccessPolicies: Match.absent(),
        AdvancedSecurityOptions: Match.absent(),
      });
    });

    it('refuses an index named in a _bulk, _mget or _msearch body, so that grants by path hold', () => {
      template.hasResourceProperties('AWS::OpenSearchService::Domain', {
        AdvancedOptions: { 'rest.action.multi.allow_explicit_index': 'false' },
      });
    });

    it('lets OpenSearch write its logs through a native resource policy', () => {
      const [policy] = Object.values(resourcesOf(template, 'AWS::Logs::ResourcePolicy'));
      const document = JSON.parse(render((policy!.Properties as { PolicyDocument: unknown }).PolicyDocument));
      expect(document.Statement).toEqual([
        expect.objectContaining({
          Effect: 'Allow',
          Principal: { Service: 'es.amazonaws.com' },
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: [
            expect.stringMatching(/SlowSearchLogs.*\.Arn$/),
            expect.stringMatching(/SlowIndexLogs.*\.Arn$/),
            expect.stringMatching(/ApplicationLogs.*\.Arn$/),
          ],
        }),
      ]);
    });

    it('creates the index templates through a custom resource, with no replicas on a single node', () => {
      template.hasResourceProperties('Custom::OpenSearchIndexTemplates', {
        ServiceToken: Match.anyValue(),
        Endpoint: Match.anyValue(),
        IndexPrefix: '',
        Shards: '1',
        Replicas: '0',
        TemplatesHash: Match.stringLikeRegexp('^[0-9a-f]{16}$'),
        RetentionMonths: '25',
      });
    });
  });

  describe('occupancy', () => {
    it('keeps locations and occupancy in one on-demand table with PK/SK string keys and point-in-time recovery', () => {
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        KeySchema: [
          { AttributeName: 'PK', KeyType: 'HASH' },
          { AttributeName: 'SK', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'PK', AttributeType: 'S' },
          { AttributeName: 'SK', AttributeType: 'S' },
        ],
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      });
    });

    it('refreshes every 5 minutes on the marks, with retries, a one-period event age and a dead-letter queue', () => {
      const refresh = functionId(template, REFRESH);
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'cron(0/5 * * * ? *)',
        State: 'ENABLED',
        Targets: [
          {
            Arn: { 'Fn::GetAtt': [refresh, 'Arn'] },
            Id: Match.anyValue(),
            RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 300 },
            DeadLetterConfig: { Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('RefreshDeadLetters'), 'Arn'] } },
          },
        ],
      });
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: refresh },
        MaximumRetryAttempts: 2,
        MaximumEventAgeInSeconds: 300,
        DestinationConfig: {
          OnFailure: { Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('RefreshDeadLetters'), 'Arn'] } },
        },
      });
    });

    it('encrypts the dead-letter queue and refuses plain HTTP', () => {
      template.hasResourceProperties('AWS::SQS::Queue', {
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 1209600,
      });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    });
  });

  describe('split', () => {
    it('is an Express state machine with full logging and tracing, finishing within the API timeout', () => {
      template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
        StateMachineType: 'EXPRESS',
        TracingConfiguration: { Enabled: true },
        LoggingConfiguration: { Level: 'ALL', IncludeExecutionData: false, Destinations: [Match.anyValue()] },
      });
      expect(stateMachineDefinition(template).TimeoutSeconds).toBe(25);
    });

    it('maps the slices over the worker (the plan passed once) with bounded concurrency, retrying only Lambda service errors', () => {
      const worker = functionId(template, WORKER);
      expect(stateMachineDefinition(template)).toMatchObject({
        StartAt: 'Slices',
        States: {
          Slices: {
            Type: 'Map',
            ItemsPath: '$.slices',
            ItemSelector: {
              'plan.$': '$.plan',
              'scope.$': '$.scope',
              'inlineLimitBytes.$': '$.inlineLimitBytes',
              'slice.$': '$$.Map.Item.Value',
            },
            MaxConcurrency: 10,
            End: true,
            ItemProcessor: {
              ProcessorConfig: { Mode: 'INLINE' },
              StartAt: 'RunSlice',
              States: {
                RunSlice: {
                  Type: 'Task',
                  Resource: `${worker}.Arn`,
                  End: true,
                  Retry: [
                    {
                      ErrorEquals: expect.arrayContaining([
                        'Lambda.ServiceException',
                        'Lambda.TooManyRequestsException',
                      ]),
                      MaxAttempts: 2,
                    },
                  ],
                },
              },
            },
          },
        },
      });
    });

    it('keeps slice results private, encrypted, TLS-only and for one day', () => {
      template.hasResourceProperties('AWS::S3::Bucket', {
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        LifecycleConfiguration: { Rules: [Match.objectLike({ ExpirationInDays: 1, Status: 'Enabled' })] },
      });
    });
  });

  describe('observability', () => {
    const alarmsOn = (metricName: string) =>
      Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).filter((a) =>
        JSON.stringify(a.Properties).includes(`"MetricName":"${metricName}"`),
      );

    it('alarms on API 5xx answers, as a burst and as a rate', () => {
      expect(alarmsOn('5xx')).toHaveLength(2);
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Metrics: Match.arrayWith([Match.objectLike({ Expression: 'IF(requests > 0, errors / requests, 0)' })]),
        Threshold: 0.05,
      });
    });

    it('alarms on the p99 answer time of the API above 10 s for 15 minutes', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/ApiGateway',
        MetricName: 'Latency',
        ExtendedStatistic: 'p99',
        Period: 300,
        Threshold: 10_000,
        EvaluationPeriods: 3,
        ComparisonOperator: 'GreaterThanThreshold',
      });
    });

    it('counts throttled requests (429) from the access logs and alarms on 10 in 5 minutes', () => {
      template.hasResourceProperties('AWS::Logs::MetricFilter', {
        FilterPattern: '{ $.status = "429" }',
        MetricTransformations: [
          Match.objectLike({
            MetricNamespace: 'LocationReporting',
            MetricName: 'ApiThrottledRequests',
            MetricValue: '1',
            DefaultValue: 0,
          }),
        ],
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApiThrottledRequests',
        Statistic: 'Sum',
        Threshold: 10,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    });

    it("alarms on the domain's JVM memory pressure, CPU and rejected searches, at AWS's recommended thresholds", () => {
      const domain = (metricName: string, props: Record<string, unknown>) =>
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/ES',
          MetricName: metricName,
          ...props,
        });
      domain('JVMMemoryPressure', {
        Statistic: 'Maximum',
        Period: 60,
        Threshold: 95,
        EvaluationPeriods: 3,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      domain('CPUUtilization', {
        Statistic: 'Maximum',
        Period: 900,
        Threshold: 80,
        EvaluationPeriods: 3,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      domain('ThreadpoolSearchRejected', {
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    });

    it('alarms per collection when more than 5% of the lines sent are refused for 15 minutes, on the metrics the ingest function emits', () => {
      // functions/ingest.ts: IngestAccepted, IngestDuplicates, IngestRejected with the `collection` dimension.
      for (const collection of ['movementEvents', 'parkingLotStats', 'parkingEvents']) {
        const line = (id: string, metricName: string) =>
          Match.objectLike({
            Id: id,
            MetricStat: Match.objectLike({
              Metric: {
                Namespace: 'LocationReporting',
                MetricName: metricName,
                Dimensions: [
                  { Name: 'collection', Value: collection },
                  { Name: 'service', Value: 'location-reporting' },
                ],
              },
              Period: 300,
              Stat: 'Sum',
            }),
          });
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Metrics: Match.arrayWith([
            Match.objectLike({
              Expression: 'IF(accepted + duplicates + rejected > 0, rejected / (accepted + duplicates + rejected), 0)',
            }),
            line('accepted', 'IngestAccepted'),
            line('duplicates', 'IngestDuplicates'),
            line('rejected', 'IngestRejected'),
          ]),
          Threshold: 0.05,
          EvaluationPeriods: 3,
          ComparisonOperator: 'GreaterThanThreshold',
        });
      }
    });

    it("counts the ingest route's throttled requests from the access logs and alarms on 10 in 5 minutes", () => {
      template.hasResourceProperties('AWS::Logs::MetricFilter', {
        FilterPattern: '{ ($.status = "429") && ($.route = "POST /ingest/{collection}") }',
        MetricTransformations: [Match.objectLike({ MetricName: 'IngestThrottledRequests', MetricValue: '1' })],
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'IngestThrottledRequests',
        Threshold: 10,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    });

    it('alarms on errors and throttles of every endpoint and the worker', () => {
      // the route families', the worker's, the ingest authorizer's, the snapshot, retention and rollup jobs', the
      // webhook delivery's
      expect(alarmsOn('Throttles')).toHaveLength(FAMILIES + 6);
      expect(alarmsOn('Errors').length).toBeGreaterThanOrEqual(FAMILIES + 5);
    });

    it('alarms when refreshes fail or land in the dead-letter queue', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(template, REFRESH) } }],
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 1,
      });
    });

    it('alarms when some locations fail to refresh in 2 of 3 runs, on the metric the refresh function emits', () => {
      // functions/refresh-occupancy.ts: metrics.addMetric('OccupancyRefreshFailures', …) with Powertools' service
      // dimension.
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'LocationReporting',
        MetricName: 'OccupancyRefreshFailures',
        Dimensions: [{ Name: 'service', Value: 'location-reporting' }],
        Statistic: 'Sum',
        Period: 300,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
      });
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: Match.objectLike({
            POWERTOOLS_SERVICE_NAME: 'location-reporting',
            POWERTOOLS_METRICS_NAMESPACE: 'LocationReporting',
          }),
        },
      });
    });

    it('notifies one TLS-only topic from every alarm', () => {
      const topics = Object.keys(resourcesOf(template, 'AWS::SNS::Topic'));
      expect(topics).toHaveLength(1);
      template.hasResourceProperties('AWS::SNS::TopicPolicy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
      for (const alarm of Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'))) {
        expect((alarm.Properties as { AlarmActions: unknown[] }).AlarmActions).toEqual([{ Ref: topics[0] }]);
      }
    });
  });

  it('tags every taggable resource with the service and the stage', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      Tags: Match.arrayWith([
        { Key: 'service', Value: 'location-reporting' },
        { Key: 'stage', Value: 'dev' },
      ]),
    });
  });

  it('outputs what the README deploy section uses', () => {
    for (const name of [
      'ApiUrl',
      'Region',
      'UserPoolId',
      'UserPoolClientId',
      'OpenSearchEndpoint',
      'TableName',
      'SplitStateMachineArn',
      'AlarmTopicArn',
    ]) {
      template.hasOutput(name, {});
    }
  });

  it('outputs the API URL without a trailing slash, so that $API/locations is a valid path', () => {
    // The API's ApiEndpoint attribute is `https://<id>.execute-api.<region>.amazonaws.com`, no slash
    // (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-apigatewayv2-api.html#aws-resource-apigatewayv2-api-return-values);
    // the $default stage's URL ends in one.
    const value = render((template.toJSON() as { Outputs: Record<string, { Value: unknown }> }).Outputs.ApiUrl!.Value);
    expect(value).toMatch(/^ApiHttpApi[0-9A-F]{8}\.ApiEndpoint$/);
  });

  it('reserves no concurrency by default (new accounts cannot reserve any)', () => {
    for (const fn of Object.values(resourcesOf(template, 'AWS::Lambda::Function'))) {
      expect((fn.Properties as { ReservedConcurrentExecutions?: number }).ReservedConcurrentExecutions).toBeUndefined();
    }
  });
});

describe('the service stack with other context', () => {
  it('gives every endpoint the problem type base a deployment documents its problem types at, and none by default', () => {
    const endpoints = (t: Template) =>
      Object.values(resourcesOf(t, 'AWS::Lambda::Function'))
        .map((f) => f.Properties as { Description?: string; Environment?: { Variables?: Record<string, unknown> } })
        .filter((p) => /^(GET|POST) \//.test(p.Description ?? ''));
    const configured = endpoints(
      synthService({ context: { problemTypeBase: 'https://docs.example.org/lrs/problems#' } }).template,
    );
    expect(configured.map((p) => p.Environment?.Variables?.PROBLEM_TYPE_BASE)).toEqual(
      configured.map(() => 'https://docs.example.org/lrs/problems#'),
    );
    expect(configured).toHaveLength(new Set(ROUTES.map((r) => r.handler)).size);
    expect(
      endpoints(synthService().template).filter((p) => p.Environment?.Variables?.PROBLEM_TYPE_BASE !== undefined),
    ).toEqual([]);
  });

  it('trusts an external issuer instead of creating a user pool', () => {
    const { template } = synthService({
      context: { jwtIssuer: 'https://login.example.com/', jwtAudience: 'api-a,api-b', organizationClaim: 'org' },
    });
    template.resourceCountIs('AWS::Cognito::UserPool', 0);
    // Without the pool, the ingest route stays behind the issuer's JWT authorizer (its tokens carry scope and
    // organization).
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'POST /ingest/{collection}',
      AuthorizationType: 'JWT',
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      JwtConfiguration: { Issuer: 'https://login.example.com/', Audience: ['api-a', 'api-b'] },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: QUERY,
      Environment: { Variables: Match.objectLike({ ORGANIZATION_CLAIM: 'org' }) },
    });
  });

  it('spreads a larger domain over zones, with dedicated masters and replicas (values as `-c` passes them: strings)', () => {
    const { template } = synthService({
      context: {
        openSearchDataNodes: '2',
        openSearchMasterNodes: '3',
        openSearchInstanceType: 'r7g.large.search',
        openSearchVolumeGiB: '100',
      },
    });
    template.hasResourceProperties('AWS::OpenSearchService::Domain', {
      ClusterConfig: Match.objectLike({
        InstanceCount: 2,
        InstanceType: 'r7g.large.search',
        ZoneAwarenessEnabled: true,
        ZoneAwarenessConfig: { AvailabilityZoneCount: 2 },
        DedicatedMasterEnabled: true,
        DedicatedMasterCount: 3,
        MultiAZWithStandbyEnabled: false,
      }),
      EBSOptions: Match.objectLike({ VolumeSize: 100 }),
    });
    template.hasResourceProperties('Custom::OpenSearchIndexTemplates', { Replicas: '1' });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'FreeStorageSpace',
      Threshold: 100 * 1024 * 0.25,
    });
  });

  it('takes the production profile: 3 data nodes in 3 zones, 3 dedicated masters, one replica', () => {
    const { template } = synthService({ context: { stage: 'prod', openSearchProfile: 'production' } });
    template.hasResourceProperties('AWS::OpenSearchService::Domain', {
      ClusterConfig: Match.objectLike({
        InstanceCount: 3,
        InstanceType: 'm7g.large.search',
        ZoneAwarenessEnabled: true,
        ZoneAwarenessConfig: { AvailabilityZoneCount: 3 },
        DedicatedMasterEnabled: true,
        DedicatedMasterCount: 3,
        DedicatedMasterType: 'm7g.large.search',
      }),
      EBSOptions: Match.objectLike({ VolumeSize: 100 }),
    });
    template.hasResourceProperties('Custom::OpenSearchIndexTemplates', { Replicas: '1' });
  });

  it('retains data stores in prod and has no CORS when no origin is configured', () => {
    const { template, stack } = synthService({ context: { stage: 'prod', corsOrigins: '', splitMaxConcurrency: 4 } });
    expect(stack.stackName).toBe('LocationReporting-prod');
    for (const type of [
      'AWS::OpenSearchService::Domain',
      'AWS::DynamoDB::Table',
      'AWS::Cognito::UserPool',
      'AWS::S3::Bucket',
    ]) {
      template.hasResource(type, { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
    template.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
    template.resourceCountIs('Custom::S3AutoDeleteObjects', 0);
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { CorsConfiguration: Match.absent() });
    expect(
      (stateMachineDefinition(template).States as { Slices: { MaxConcurrency: number } }).Slices.MaxConcurrency,
    ).toBe(4);
  });

  it('reserves concurrency for the query function and the slice worker when asked', () => {
    const { template } = synthService({
      context: { queryReservedConcurrency: '20', sliceWorkerReservedConcurrency: '30' },
    });
    template.hasResourceProperties('AWS::Lambda::Function', { Description: QUERY, ReservedConcurrentExecutions: 20 });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Runs one slice'),
      ReservedConcurrentExecutions: 30,
    });
  });

  it('refuses a log retention CloudWatch does not offer', () => {
    expect(() => synthService({ context: { logRetentionDays: 31 } })).toThrow(/logRetentionDays/);
  });

  it('destroys data stores outside prod', () => {
    const { template } = synthService();
    template.hasResource('AWS::OpenSearchService::Domain', { DeletionPolicy: 'Delete' });
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
  });
});

function logicalIdOfType(template: Template, type: string): string {
  const ids = Object.keys(resourcesOf(template, type));
  if (ids.length !== 1) throw new Error(`expected one ${type}, found ${ids.length}`);
  return ids[0]!;
}
const domainId = (t: Template) => logicalIdOfType(t, 'AWS::OpenSearchService::Domain');
const tableId = (t: Template) => logicalIdOfType(t, 'AWS::DynamoDB::Table');
/** The slice results bucket: the one whose objects expire (the explorer's holds the page). */
const bucketId = (t: Template) => {
  // The slice results bucket: the one whose objects expire (the snapshot bucket's never do).
  const ids = Object.entries(resourcesOf(t, 'AWS::S3::Bucket')).filter(([, r]) =>
    (
      (r.Properties as { LifecycleConfiguration?: { Rules: { ExpirationInDays?: number }[] } }).LifecycleConfiguration
        ?.Rules ?? []
    ).some((rule) => rule.ExpirationInDays),
  );
  if (ids.length !== 1) throw new Error(`expected one bucket whose objects expire, found ${ids.length}`);
  return ids[0]![0];
};
const stateMachineId = (t: Template) => logicalIdOfType(t, 'AWS::StepFunctions::StateMachine');
