import '../report/schema/request';
import '../locations/schema';
import '../ingest/machine-clients';
import { PROBLEM_SLUGS, PROBLEM_TYPES, type ProblemTypeDoc } from '../problem-types';
import { problemTypeUri } from '../problem-uri';
import { generatedComponents } from './components';

type Json = Record<string, unknown>;

const requestId = 'The id of the request, as in X-Request-Id: quote it to find the request in the logs.';

/**
 * The component schemas: the requests' from the validating zod schemas (./components.ts; importing
 * a request schema registers it), the answers written out. `problemTypeBase`: where the problem
 * types are documented (see shared/problem-types.ts).
 */
export function componentSchemas(problemTypeBase?: string): Record<string, Json> {
  return {
    ...generatedComponents(),
    ReportResponse: {
      description:
        "A report: shape 1 when the pipeline starts with dateHistogram, else shape 2; with `compare`, the pairs of each period's buckets (or objects).",
      oneOf: [
        {
          type: 'array',
          description:
            'Shape 1: one object per time bucket, its start and one number per series (a series without documents in a bucket is left out).',
          items: {
            type: 'object',
            required: ['timestamp'],
            properties: {
              timestamp: {
                type: 'string',
                format: 'date-time',
                description: "The bucket's start, in UTC with milliseconds (`2024-03-01T00:00:00.000Z`).",
              },
            },
            additionalProperties: { type: 'number' },
          },
        },
        {
          type: 'object',
          description: 'Shape 2: one number per series and stat.',
          additionalProperties: { type: 'number' },
        },
        {
          type: 'array',
          description:
            "A comparison (`compare`) of shape 1: one object per pair of time buckets, the report's own in `current`, its partner in the earlier period in `previous`, each a shape 1 bucket. A bucket without partner (a day the other month lacks, an hour skipped or repeated by a DST change) comes alone, in time order.",
          items: {
            type: 'object',
            minProperties: 1,
            properties: {
              current: {
                $ref: '#/components/schemas/ReportBucket',
                description: "A bucket of the report's own period; left out when this pair has none.",
              },
              previous: {
                $ref: '#/components/schemas/ReportBucket',
                description: 'Its partner in the earlier period; left out when there is none.',
              },
            },
            additionalProperties: false,
          },
        },
        {
          type: 'object',
          description: 'A comparison (`compare`) of shape 2: the report over its own period and over the earlier one.',
          required: ['current', 'previous'],
          properties: {
            current: {
              type: 'object',
              description: "Shape 2 over the report's period.",
              additionalProperties: { type: 'number' },
            },
            previous: {
              type: 'object',
              description: 'Shape 2 over the earlier period.',
              additionalProperties: { type: 'number' },
            },
          },
          additionalProperties: false,
        },
      ],
    },
    ReportBucket: {
      type: 'object',
      description:
        'One time bucket of a comparison: its start and one number per series (a series without documents in the bucket is left out).',
      required: ['timestamp'],
      properties: {
        timestamp: {
          type: 'string',
          format: 'date-time',
          description: "The bucket's start, in UTC with milliseconds.",
        },
      },
      additionalProperties: { type: 'number' },
    },
    Location: {
      type: 'object',
      description: "A location of the caller's organization.",
      required: [
        'id',
        'name',
        'organizationId',
        'type',
        'timezone',
        'createdBy',
        'updatedBy',
        'createdAt',
        'updatedAt',
      ],
      properties: {
        id: {
          type: 'string',
          description: 'The id of the location, as in `/locations/{locationId}` and in `locationIds` of a report.',
        },
        name: { type: 'string', description: 'What people call it (its id, for a location given no name).' },
        organizationId: {
          type: 'string',
          format: 'uuid',
          description: 'The organization the location belongs to (the caller’s).',
        },
        type: { type: 'string', description: 'What kind of place it is (`shopping-mall`, `store`, …).' },
        timezone: {
          type: 'string',
          description: 'The IANA time zone of the location (`Europe/Berlin`): opening hours are in it.',
        },
        createdBy: {
          type: ['string', 'null'],
          description: 'Who created the location (the `sub` of their token, or an import’s actor), when known.',
        },
        updatedBy: {
          type: ['string', 'null'],
          description: 'Who last changed the location (the `sub` of their token, or an import’s actor), when known.',
        },
        createdAt: { type: 'string', format: 'date-time', description: 'When the location was created.' },
        updatedAt: { type: 'string', format: 'date-time', description: 'When the location was last changed.' },
      },
    },
    LiveInsights: {
      type: 'object',
      description: 'The live insights asked for by `filter`.',
      required: ['insights'],
      properties: {
        insights: {
          type: 'object',
          description: 'One member per insight kind asked for.',
          properties: {
            occupancy: {
              type: 'array',
              description: 'The open sensor groups with fresh data; a closed one, or one without data, is left out.',
              items: { $ref: '#/components/schemas/OccupancyItem' },
            },
            health: {
              $ref: '#/components/schemas/SensorHealth',
              description: "filter=health: the location's cameras and parking lots (docs/sensor-health.md).",
            },
          },
        },
      },
    },
    OccupancyItem: {
      type: 'object',
      description:
        'One open sensor group with fresh data: people in it now, and how full it is when it has a capacity.',
      required: ['sensorGroup', 'occupancy'],
      properties: {
        sensorGroup: {
          type: 'object',
          description: 'The sensor group counted.',
          required: ['id', 'name'],
          properties: {
            id: { type: 'integer', description: 'The id of the sensor group within its location.' },
            name: { type: 'string', description: 'Its name.' },
          },
        },
        occupancy: {
          type: 'number',
          description: 'People in the area now: ins less outs since the group opened today, never below 0.',
        },
        capacity: { type: 'integer', minimum: 1, description: "The group's capacity now, when it has one." },
        utilization: {
          type: 'number',
          minimum: 0,
          description:
            '`occupancy` ÷ `capacity`, rounded half up to 3 decimals (0.417 is 41.7 %; above 1 is over capacity); with `capacity`.',
        },
      },
    },
    SensorHealth: {
      type: 'object',
      description:
        "Whether each camera of the sensor groups' lines and each parking lot with stats in the last 28 days sends as usual (docs/sensor-health.md).",
      required: ['cameras', 'parkingLots'],
      properties: {
        cameras: {
          type: 'array',
          description: "Every camera of the location's groups, by id.",
          items: { $ref: '#/components/schemas/CameraHealth' },
        },
        parkingLots: {
          type: 'array',
          description: 'Every parking lot with stats at the location in the last 28 days, by id.',
          items: { $ref: '#/components/schemas/ParkingLotHealth' },
        },
      },
    },
    CameraHealth: {
      type: 'object',
      description: "The health of one camera of the location's sensor groups' lines.",
      required: ['trackingCameraId', 'sensorGroupIds', 'status', 'lastEventAt', 'usualGapSeconds'],
      properties: {
        trackingCameraId: { type: 'string', description: 'The camera, as in the lines of the groups.' },
        sensorGroupIds: { type: 'array', items: { type: 'integer' }, description: 'The groups whose lines it counts.' },
        ...sensorHealthProperties(),
      },
    },
    ParkingLotHealth: {
      type: 'object',
      description: 'The health of one parking lot with stats at the location in the last 28 days.',
      required: ['parkingLotId', 'status', 'lastEventAt', 'usualGapSeconds'],
      properties: {
        parkingLotId: { type: 'string', description: 'The lot, as in its stats.' },
        ...sensorHealthProperties(),
      },
    },
    Health: {
      type: 'object',
      description:
        'Whether the service can answer: `ok` when every check is; a check that is not says `fail` (an error, logged) or `timeout` (no answer within 3 s).',
      required: ['status', 'checks'],
      properties: {
        status: { type: 'string', enum: ['ok', 'fail'], description: '`ok` when every check is `ok`.' },
        checks: {
          type: 'object',
          description: 'Each check by name.',
          required: ['engine', 'table'],
          properties: {
            engine: {
              $ref: '#/components/schemas/CheckStatus',
              description: 'The report engine (OpenSearch in AWS, DuckDB locally) answers a query.',
            },
            table: {
              $ref: '#/components/schemas/CheckStatus',
              description: 'The DynamoDB table of locations and occupancy answers a read.',
            },
          },
        },
      },
    },
    CheckStatus: { type: 'string', enum: ['ok', 'fail', 'timeout'], description: 'How a health check went.' },
    GatewayMessage: {
      type: 'object',
      description:
        "API Gateway's own answer (deployed only), before or instead of the function: the JWT authorizer's 401, the ingest route's Lambda authorizer's 403, throttling's 429, a function that failed (500) or did not answer in time (503).",
      required: ['message'],
      properties: {
        message: {
          type: 'string',
          enum: ['Unauthorized', 'Forbidden', 'Too Many Requests', 'Internal Server Error', 'Service Unavailable'],
          description: "API Gateway's reason.",
        },
      },
    },
    Problem: problemSchema(problemTypeBase),
  };
}

/** The JSON Schema of each extension member a problem type has (shared/problem-types.ts says what it means). */
const MEMBER_SCHEMAS: Readonly<Record<string, Json>> = {
  errors: {
    type: 'array',
    items: {
      type: 'object',
      required: ['path', 'message'],
      properties: {
        path: { type: 'string', description: 'A JSON Pointer into the request.' },
        message: { type: 'string', description: 'What is wrong there, and what is allowed.' },
      },
    },
  },
  allowed: { type: 'array', items: { type: 'string' } },
  scope: { type: 'string' },
  maxBuckets: { type: 'integer' },
  maxDepth: { type: 'integer' },
  maxAnswerBuckets: { type: 'integer' },
  splitInterval: { type: 'string' },
  bytes: { type: 'integer' },
  maxBytes: { type: 'integer' },
  timeoutMs: { type: 'integer' },
  reason: { type: 'string', enum: ['exists', 'deleted', 'endpoint-disabled', 'in-flight', 'too-many-rules'] },
  maxRules: { type: 'integer' },
  deletedAt: { type: 'string', format: 'date-time' },
  maxGroupChanges: { type: 'integer' },
};

/** RFC 9457 problem details: `type` one of the documented types, and the extension members of every type. */
function problemSchema(problemTypeBase?: string): Json {
  const uses = new Map<string, string[]>();
  for (const slug of PROBLEM_SLUGS) {
    for (const [member, meaning] of Object.entries((PROBLEM_TYPES[slug] as ProblemTypeDoc).members ?? {}))
      uses.set(member, [...(uses.get(member) ?? []), `${slug}: ${meaning}`]);
  }
  const extensions = [...uses].map(([member, meanings]) => {
    const schema = MEMBER_SCHEMAS[member];
    if (!schema) throw new Error(`The problem member "${member}" has no schema in MEMBER_SCHEMAS.`);
    return [member, { ...schema, description: meanings.join(' ') }];
  });
  return {
    type: 'object',
    description: 'RFC 9457 problem details, with the id of the request.',
    required: ['type', 'title', 'status', 'detail'],
    properties: {
      type: {
        type: 'string',
        format: 'uri-reference',
        enum: PROBLEM_SLUGS.map((slug) => problemTypeUri(slug, problemTypeBase)),
        description:
          'The problem type: the problems page with the type as its fragment, where its meaning and what to do are written. Relative, it resolves against the address of the API (`GET /problems`).',
      },
      title: { type: 'string', description: "The problem type's title; the same for every problem of a type." },
      status: { type: 'integer', description: 'The HTTP status of the answer.' },
      detail: { type: 'string', description: 'What went wrong with this request, and what to do.' },
      requestId: { type: 'string', description: requestId },
      ...Object.fromEntries(extensions),
    },
  };
}

/** The members a camera's and a parking lot's health share. */
function sensorHealthProperties(): Record<string, Json> {
  return {
    status: {
      type: 'string',
      enum: ['ok', 'silent', 'unknown'],
      description:
        '`silent`: nothing for longer than its usual gap at this hour allows (7 usual gaps, 15 minutes at least) while a group of it is open (a lot: always); `unknown`: no event in 28 days, or less than a week of history; `ok` otherwise.',
    },
    lastEventAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'Its last event in the last 28 days, to the second; null without one.',
    },
    usualGapSeconds: {
      type: ['integer', 'null'],
      description:
        'One hour divided by its usual events in this hour of the week; null when unknown or usually quiet at this hour.',
    },
  };
}
