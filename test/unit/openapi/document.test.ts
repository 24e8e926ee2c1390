import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApiDocument } from '#shared/openapi/document';
import { PROBLEM_SLUGS } from '#shared/problem-types';
import { CATALOG, COLLECTIONS } from '#shared/documents/fields';
import { HISTOGRAM_INTERVAL } from '#shared/report/schema/aggregations';
import { SPLIT_INTERVAL } from '#shared/report/schema/request';
import { COMPARE_OFFSET } from '#shared/report/schema/compare';
import { canonicalTimeZone, TIME_ZONE_PATTERN } from '#shared/time/zones';

const ROOT = join(__dirname, '../../..');

interface LintProblem {
  readonly ruleId: string;
  readonly message: string;
  readonly location: { readonly pointer: string }[];
}

/**
 * Redocly CLI (a devDependency: one self-contained package, no install script, no network) on a
 * document, with the project's redocly.yaml; telemetry and the update check off.
 */
function lint(document: unknown): LintProblem[] {
  const dir = mkdtempSync(join(tmpdir(), 'lrs-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const run = spawnSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'),
        'lint',
        file,
        '--config',
        join(ROOT, 'redocly.yaml'),
        '--format=json',
      ],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        timeout: 60_000,
      },
    );
    if (!run.stdout.trim().startsWith('{'))
      throw new Error(`redocly lint did not report (${run.status}): ${run.stderr}`);
    return (JSON.parse(run.stdout) as { problems: LintProblem[] }).problems;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the OpenAPI document', () => {
  test('is a valid OpenAPI 3.1 document', () => {
    // Prepare: the validator is ESM that reads its schemas through import.meta, so it runs in plain Node.
    const script = `
      import { Validator } from '@seriousme/openapi-schema-validator';
      const chunks = []; for await (const c of process.stdin) chunks.push(c);
      const result = await new Validator().validate(JSON.parse(Buffer.concat(chunks).toString()));
      console.log(JSON.stringify({ valid: result.valid, errors: result.errors ?? [] }));`;
    // Act
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      input: JSON.stringify(openApiDocument()),
      cwd: join(__dirname, '../../..'),
    });
    // Assess
    expect(JSON.parse(output.toString())).toEqual({ valid: true, errors: [] });
  });

  test('the validator used above refuses a broken document', () => {
    const script = `
      import { Validator } from '@seriousme/openapi-schema-validator';
      const result = await new Validator().validate({ openapi: '3.1.0', info: { title: 'x' }, paths: { '/a': { get: { responses: 'none' } } } });
      console.log(JSON.stringify(result.valid));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: join(__dirname, '../../..'),
    });
    expect(output.toString().trim()).toBe('false');
  });

  test('lints clean with Redocly CLI: recommended-strict and the rules of redocly.yaml', () => {
    expect(lint(openApiDocument()).map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
  });

  test('the lint run above fails on an example its schema refuses, and on an operation without a description', () => {
    const broken = openApiDocument() as unknown as Doc;
    const health = broken.paths['/health']!.get!;
    (health.responses['200']!.content!['application/json']!.examples!.ok!.value as { status: string }).status = 'okay';
    delete health.description;
    expect(
      lint(broken)
        .map((p) => [p.ruleId, p.location[0]?.pointer])
        .sort(),
    ).toEqual([
      [
        'no-invalid-media-type-examples',
        '#/paths/~1health/get/responses/200/content/application~1json/examples/ok/value/status',
      ],
      ['operation-description', '#/paths/~1health/get/description'],
    ]);
  });

  test('is written to openapi.json as generated (run `npm run openapi` after a schema change)', () => {
    const written = JSON.parse(readFileSync(join(__dirname, '../../../openapi.json'), 'utf8'));
    expect(written).toEqual(openApiDocument());
  });

  test('describes the request with the validating schema: strict objects and the aggregation kinds', () => {
    const request = schemas.ReportRequest!;
    expect(request).toMatchObject({ type: 'object', required: ['aggregations'], additionalProperties: false });
    const kinds = (union: string) => Object.keys((schemas[union]!.discriminator as { mapping: object }).mapping);
    expect(kinds('Filter')).toEqual(['terms', 'range']);
    expect(kinds('Aggregation')).toEqual([
      'terms',
      'stats',
      'dateHistogram',
      'profile',
      'filter',
      'filters',
      'nested',
      'reverseNested',
    ]);
  });
});

type Schema = Record<string, unknown> & {
  properties?: Record<string, Schema>;
  enum?: unknown[];
  pattern?: string;
  $ref?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
};
const schemas = (openApiDocument() as { components: { schemas: Record<string, Schema> } }).components.schemas;
const property = (component: string, name: string): Schema => schemas[component]!.properties![name]!;

describe('the typed request vocabulary of the OpenAPI document', () => {
  test('names the filters and the aggregations, each union discriminated by type with a mapping to its kinds', () => {
    expect(schemas.Filter).toMatchObject({
      oneOf: [{ $ref: '#/components/schemas/TermsFilter' }, { $ref: '#/components/schemas/RangeFilter' }],
      discriminator: {
        propertyName: 'type',
        mapping: { terms: '#/components/schemas/TermsFilter', range: '#/components/schemas/RangeFilter' },
      },
    });
    const aggregations = [
      'TermsAggregation',
      'StatsAggregation',
      'DateHistogramAggregation',
      'ProfileAggregation',
      'FilterAggregation',
      'FiltersAggregation',
      'NestedAggregation',
      'ReverseNestedAggregation',
    ];
    expect(schemas.Aggregation!.oneOf).toEqual(aggregations.map((name) => ({ $ref: `#/components/schemas/${name}` })));
    expect(schemas.Aggregation!.discriminator).toEqual({
      propertyName: 'type',
      mapping: Object.fromEntries(
        aggregations.map((name) => [
          name[0]!.toLowerCase() + name.slice(1, -'Aggregation'.length),
          `#/components/schemas/${name}`,
        ]),
      ),
    });
    for (const kind of [...aggregations, 'TermsFilter', 'RangeFilter'])
      expect([kind, schemas[kind]!.required]).toEqual([kind, expect.arrayContaining(['type'])]);
  });

  test('lists the field names of each collection, from the field catalog, and every field as their union', () => {
    expect(schemas.MovementEventsField!.enum).toEqual([
      'locationId',
      'timestamp',
      'trackingCameraId',
      'label',
      'crossedPaths.id',
      'crossedPaths.end',
      'crossedPaths.start',
      'polygons.id',
      'polygons.value',
    ]);
    expect(schemas.ParkingLotStatsField!.enum).toEqual([
      'locationId',
      'timestamp',
      'parkingLotId',
      'occupied',
      'free',
      'total',
    ]);
    expect(schemas.ParkingEventsField!.enum).toEqual([
      'locationId',
      'timestamp',
      'parkingLotId',
      'cameraId',
      'duration',
      'spotId',
      'startingTimestamp',
    ]);
    for (const c of COLLECTIONS)
      expect(schemas[`${c[0]!.toUpperCase()}${c.slice(1)}Field`]!.enum).toEqual([...CATALOG[c].keys()]);
    expect(schemas.FieldName!.anyOf).toEqual(
      ['MovementEventsField', 'ParkingLotStatsField', 'ParkingEventsField'].map((name) => ({
        $ref: `#/components/schemas/${name}`,
      })),
    );
    const field = { $ref: '#/components/schemas/FieldName', description: expect.any(String) };
    for (const [kind, name] of [
      ['TermsFilter', 'field'],
      ['RangeFilter', 'field'],
      ['TermsAggregation', 'field'],
      ['StatsAggregation', 'field'],
    ] as const)
      expect(property(kind, name)).toEqual(field);
    expect(property('DateHistogramAggregation', 'field')).toMatchObject({ type: 'string', const: 'timestamp' });
    expect(property('ProfileAggregation', 'unit')).toMatchObject({ type: 'string', enum: ['hour', 'weekday'] });
  });

  test('names nested paths, collections, timestamps and range bounds', () => {
    expect(schemas.NestedPath!.enum).toEqual(['crossedPaths', 'polygons']);
    expect(schemas.Collection!.enum).toEqual(['movementEvents', 'parkingLotStats', 'parkingEvents']);
    for (const [kind, name] of [
      ['NestedFilter', 'path'],
      ['NestedAggregation', 'path'],
      ['ReverseNestedAggregation', 'path'],
    ] as const) {
      expect(property(kind, name).$ref).toBe('#/components/schemas/NestedPath');
    }
    expect(property('ReportRequest', 'source').$ref).toBe('#/components/schemas/Collection');
    expect(schemas.Timestamp).toMatchObject({ type: 'string', format: 'date-time' });
    expect(schemas.RangeBound!.anyOf).toEqual([{ type: 'number' }, { $ref: '#/components/schemas/Timestamp' }]);
    expect([property('RangeFilter', 'from').$ref, property('RangeFilter', 'to').$ref]).toEqual([
      '#/components/schemas/RangeBound',
      '#/components/schemas/RangeBound',
    ]);
  });

  test("gives interval and splitInterval the validators' own patterns", () => {
    expect(property('DateHistogramAggregation', 'interval').pattern).toBe(HISTOGRAM_INTERVAL.source);
    expect(property('ReportRequest', 'splitInterval').pattern).toBe(SPLIT_INTERVAL.source);
    expect(['15m', '1M', '7d'].every((i) => HISTOGRAM_INTERVAL.test(i)) && !HISTOGRAM_INTERVAL.test('2w')).toBe(true);
  });

  test("gives every timeZone the pattern of a zone name and compare.offset the validator's own, so a client validating against the document refuses them", () => {
    // Assess: the three places a report names a zone show the TimeZone component, a pattern, not a plain string.
    for (const [kind, name] of [
      ['DateHistogramAggregation', 'timeZone'],
      ['ProfileAggregation', 'timeZone'],
      ['Compare', 'timeZone'],
    ] as const) {
      expect([kind, property(kind, name).$ref]).toEqual([kind, '#/components/schemas/TimeZone']);
    }
    expect(schemas.TimeZone).toMatchObject({ type: 'string', pattern: TIME_ZONE_PATTERN.source, maxLength: 64 });
    expect(property('Compare', 'offset').pattern).toBe(COMPARE_OFFSET.source);
    // The pattern keeps every zone the service knows and refuses the offsets and words it refuses.
    const pattern = new RegExp(schemas.TimeZone!.pattern as string);
    const known = Intl.supportedValuesOf('timeZone');
    expect(known.filter((zone) => !pattern.test(zone))).toEqual([]);
    for (const wrong of ['+01:00', 'GMT +1', 'Europe/', '/Berlin', 'Europe Berlin', ''])
      expect([wrong, pattern.test(wrong), canonicalTimeZone(wrong)]).toEqual([wrong, false, undefined]);
    expect(
      ['1w', '999y'].every((o) => COMPARE_OFFSET.test(o)) && !['1h', '1000d', '0w'].some((o) => COMPARE_OFFSET.test(o)),
    ).toBe(true);
  });

  test('describes every property of every schema, and every component', () => {
    const undescribed: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${at}/${i}`));
      if (typeof node !== 'object' || node === null) return;
      const { properties } = node as Schema;
      if (
        properties &&
        typeof properties === 'object' &&
        !('type' in properties && typeof properties.type === 'string')
      ) {
        for (const [name, schema] of Object.entries(properties))
          if (typeof schema.description !== 'string' || schema.description === '')
            undescribed.push(`${at}/properties/${name}`);
      }
      for (const [key, value] of Object.entries(node))
        if (key !== 'examples' && key !== 'example') walk(value, `${at}/${key}`);
    };
    walk(openApiDocument(), '#');
    expect(undescribed).toEqual([]);
    expect(
      Object.entries(schemas)
        .filter(([, schema]) => typeof schema.description !== 'string')
        .map(([name]) => name),
    ).toEqual([]);
  });

  test('lists every problem type as an enum of URIs into the problems page, one per slug of the catalog', () => {
    expect(property('Problem', 'type').enum).toEqual(PROBLEM_SLUGS.map((slug) => `/problems#${slug}`));
    const elsewhere = openApiDocument({ problemTypeBase: 'https://docs.example.org/lrs/problems#' }) as {
      components: { schemas: Record<string, Schema> };
    };
    expect(elsewhere.components.schemas.Problem!.properties!.type!.enum).toContain(
      'https://docs.example.org/lrs/problems#too-many-buckets',
    );
  });
});

interface MediaType {
  readonly examples?: Record<string, { value: unknown }>;
}
interface Response {
  readonly $ref?: string;
  readonly headers?: Record<string, { $ref?: string }>;
  readonly content?: Record<string, MediaType>;
}
interface Operation {
  description?: string;
  readonly operationId: string;
  readonly security?: unknown[];
  readonly requestBody?: { content: Record<string, MediaType> };
  readonly responses: Record<string, Response>;
}
interface Doc {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { responses: Record<string, Response>; headers: Record<string, unknown> };
}

const doc = openApiDocument() as unknown as Doc;
const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
const resolve = (response: Response): Response =>
  response.$ref ? doc.components.responses[response.$ref.split('/').pop()!]! : response;

describe('what the OpenAPI document says of the answers', () => {
  test('lists every status each operation answers, API Gateway’s own (429, and 401, 500, 503 deployed) included', () => {
    expect(Object.fromEntries(operations.map((o) => [o.operationId, Object.keys(o.responses).sort()]))).toEqual({
      listLocations: ['200', '304', '401', '405', '406', '421', '429', '500', '503'],
      createLocation: ['201', '400', '401', '403', '405', '406', '409', '413', '415', '421', '429', '500', '503'],
      getLocation: ['200', '304', '401', '404', '405', '406', '421', '429', '500', '503'],
      replaceLocation: [
        '200',
        '400',
        '401',
        '403',
        '404',
        '405',
        '406',
        '412',
        '413',
        '415',
        '421',
        '422',
        '428',
        '429',
        '500',
        '503',
      ],
      deleteLocation: ['204', '401', '403', '404', '405', '412', '421', '429', '500', '503'],
      listLocationChanges: ['200', '304', '400', '401', '404', '405', '406', '421', '429', '500', '503'],
      registerIngestClient: ['201', '400', '401', '403', '405', '406', '413', '415', '421', '429', '500', '503'],
      listIngestClients: ['200', '304', '401', '403', '405', '406', '421', '429', '500', '503'],
      revokeIngestClient: ['204', '401', '403', '404', '405', '421', '429', '500', '503'],
      createWebhookEndpoint: ['201', '400', '401', '403', '405', '406', '413', '415', '421', '429', '500', '503'],
      listWebhookEndpoints: ['200', '304', '401', '405', '406', '421', '429', '500', '503'],
      getWebhookEndpoint: ['200', '304', '401', '404', '405', '406', '421', '429', '500', '503'],
      replaceWebhookEndpoint: [
        '200',
        '400',
        '401',
        '403',
        '404',
        '405',
        '406',
        '412',
        '413',
        '415',
        '421',
        '428',
        '429',
        '500',
        '503',
      ],
      deleteWebhookEndpoint: ['204', '401', '403', '404', '405', '412', '421', '429', '500', '503'],
      sendWebhookTest: ['202', '401', '403', '404', '405', '406', '421', '429', '500', '503'],
      rotateWebhookSecret: ['200', '401', '403', '404', '405', '406', '412', '421', '429', '500', '503'],
      listWebhookDeliveries: ['200', '304', '400', '401', '404', '405', '406', '421', '429', '500', '503'],
      retryWebhookDelivery: ['202', '401', '403', '404', '405', '406', '409', '421', '429', '500', '503'],
      getLiveInsights: ['200', '304', '400', '401', '404', '405', '406', '421', '429', '500', '503'],
      getOccupancyHistory: ['200', '304', '400', '401', '404', '405', '406', '421', '429', '500', '503'],
      getSitesOverview: ['200', '304', '401', '405', '406', '421', '429', '500', '503'],
      queryReport: ['200', '400', '401', '403', '405', '406', '413', '415', '421', '422', '429', '500', '503'],
      ingestDocuments: [
        '200',
        '400',
        '401',
        '403',
        '404',
        '405',
        '406',
        '409',
        '413',
        '415',
        '421',
        '422',
        '429',
        '500',
        '503',
      ],
      createAlertRule: ['201', '400', '401', '403', '405', '406', '409', '413', '415', '421', '429', '500', '503'],
      listAlertRules: ['200', '304', '401', '405', '406', '421', '429', '500', '503'],
      getAlertRule: ['200', '304', '401', '404', '405', '406', '421', '429', '500', '503'],
      replaceAlertRule: [
        '200',
        '400',
        '401',
        '403',
        '404',
        '405',
        '406',
        '412',
        '413',
        '415',
        '421',
        '428',
        '429',
        '500',
        '503',
      ],
      deleteAlertRule: ['204', '401', '403', '404', '405', '412', '421', '429', '500', '503'],
      getHealth: ['200', '405', '421', '429', '500', '503'],
      getProblemTypes: ['200', '304', '405', '421', '429', '500'],
    });
  });

  test('has an example for every answer with a body and for every request body', () => {
    const missing = operations.flatMap((o) => [
      ...Object.entries(o.responses).flatMap(([status, r]) =>
        Object.entries(resolve(r).content ?? {})
          .filter(([, m]) => Object.keys(m.examples ?? {}).length === 0)
          .map(([type]) => `${o.operationId} ${status} ${type}`),
      ),
      ...Object.entries(o.requestBody?.content ?? {})
        .filter(([, m]) => Object.keys(m.examples ?? {}).length === 0)
        .map(([type]) => `${o.operationId} request ${type}`),
    ]);
    expect(missing).toEqual([]);
    expect(doc.components.responses.NotModified!.content).toBeUndefined();
  });

  test('documents the headers: X-Request-Id, ETag, Content-Encoding, Vary, X-Report-Truncated, Deprecation, Server-Timing, Retry-After', () => {
    expect(Object.keys(doc.components.headers)).toEqual(
      expect.arrayContaining([
        'X-Request-Id',
        'ETag',
        'Content-Encoding',
        'Vary',
        'X-Report-Truncated',
        'Deprecation',
        'Retry-After',
      ]),
    );
    const headersOf = (id: string, status: string) =>
      Object.keys(resolve(operations.find((o) => o.operationId === id)!.responses[status]!).headers ?? {}).sort();
    expect(headersOf('queryReport', '200')).toEqual([
      'Cache-Control',
      'Content-Encoding',
      'Deprecation',
      'Server-Timing',
      'Vary',
      'X-Report-Truncated',
      'X-Request-Id',
    ]);
    expect(headersOf('queryReport', '503')).toEqual(['Retry-After', 'X-Request-Id']);
    expect(headersOf('getLiveInsights', '200')).toEqual([
      'Cache-Control',
      'Content-Encoding',
      'ETag',
      'Vary',
      'X-Request-Id',
    ]);
    expect(headersOf('getLiveInsights', '304')).toEqual(['Cache-Control', 'ETag', 'Vary', 'X-Request-Id']);
    expect(headersOf('ingestDocuments', '200')).toEqual([
      'Cache-Control',
      'Idempotent-Replayed',
      'Vary',
      'X-Request-Id',
    ]);
    expect(headersOf('ingestDocuments', '409')).toEqual(['Retry-After', 'X-Request-Id']);
    expect(headersOf('ingestDocuments', '503')).toEqual(['Retry-After', 'X-Request-Id']);
  });

  test('lets /health and /problems be called without a token, and every other operation only with one', () => {
    expect(operations.filter((o) => o.security !== undefined).map((o) => [o.operationId, o.security])).toEqual([
      ['getHealth', []],
      ['getProblemTypes', []],
    ]);
  });

  test('shows API Gateway’s throttling answer for 429: {"message":"Too Many Requests"}', () => {
    expect(doc.components.responses.TooManyRequests!.content!['application/json']!.examples!.throttled!.value).toEqual({
      message: 'Too Many Requests',
    });
  });
});
