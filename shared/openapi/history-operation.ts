import {
  DEFAULT_HISTORY_INTERVAL,
  HISTORY_INTERVALS,
  MAX_HISTORY_BUCKETS,
  MAX_HISTORY_DAYS,
  MAX_HISTORY_VALUES,
} from '../occupancy/history-query';
import {
  cacheControl,
  common,
  engineUnavailable,
  getHeaders,
  insightParameters,
  problemResponse,
  ref,
  type ProblemExample,
} from './responses';

/** `GET /locations/{locationId}/insights/history`: occupancy over time per sensor group. */

type Json = Record<string, unknown>;

const INVALID_INTERVAL = `must be one of ${HISTORY_INTERVALS.join(', ')} (default ${DEFAULT_HISTORY_INTERVAL})`;

/**
 * The answer to `?filter=occupancy&from=2024-03-31T03:00:00Z&to=2024-03-31T06:00:00Z&interval=1h` for berlin-mall
 * (test/integration/occupancy/history.test.ts).
 */
const hourly = {
  timeZone: 'Europe/Berlin',
  interval: '1h',
  from: '2024-03-31T03:00:00.000Z',
  to: '2024-03-31T06:00:00.000Z',
  insights: {
    occupancy: [
      {
        sensorGroup: { id: 1, name: 'Entrance hall' },
        buckets: [
          { timestamp: '2024-03-31T03:00:00.000Z' },
          {
            timestamp: '2024-03-31T04:00:00.000Z',
            occupancy: 2,
            peak: 2,
            capacity: 40,
            utilization: 0.05,
            peakUtilization: 0.05,
          },
          {
            timestamp: '2024-03-31T05:00:00.000Z',
            occupancy: 1,
            peak: 1,
            capacity: 40,
            utilization: 0.025,
            peakUtilization: 0.025,
          },
        ],
      },
      {
        sensorGroup: { id: 3, name: 'Parking' },
        buckets: [
          { timestamp: '2024-03-31T03:00:00.000Z', occupancy: 1, peak: 1 },
          { timestamp: '2024-03-31T04:00:00.000Z', occupancy: 1, peak: 1 },
          { timestamp: '2024-03-31T05:00:00.000Z', occupancy: 1, peak: 1 },
        ],
      },
    ],
  },
};

const described = (description: string, schema: Json): Json => ({ description, ...schema });

export const historySchema: Json = {
  type: 'object',
  description: 'Occupancy over time per sensor group of the location, in buckets of its time zone.',
  required: ['timeZone', 'interval', 'from', 'to', 'insights'],
  properties: {
    timeZone: described("The location's IANA time zone, in which buckets and opening hours are aligned.", {
      type: 'string',
    }),
    interval: described('The bucket length.', { type: 'string', enum: [...HISTORY_INTERVALS] }),
    from: described('Start of the first bucket (ISO 8601 UTC).', { type: 'string', format: 'date-time' }),
    to: described('End of the last bucket (ISO 8601 UTC).', { type: 'string', format: 'date-time' }),
    insights: described('One member per insight kind asked for.', {
      type: 'object',
      properties: {
        occupancy: described('Every sensor group of the location, ordered by id.', {
          type: 'array',
          items: described('One sensor group.', {
            type: 'object',
            required: ['sensorGroup', 'buckets'],
            properties: {
              sensorGroup: described('The sensor group counted.', {
                type: 'object',
                required: ['id', 'name'],
                properties: {
                  id: described('The id of the sensor group within its location.', { type: 'integer' }),
                  name: described('Its name.', { type: 'string' }),
                },
              }),
              buckets: described('Every bucket of the range, in time order.', {
                type: 'array',
                items: described('One bucket; without occupancy and peak when the group was closed for all of it.', {
                  type: 'object',
                  required: ['timestamp'],
                  properties: {
                    timestamp: described('Bucket start (ISO 8601 UTC with milliseconds).', {
                      type: 'string',
                      format: 'date-time',
                    }),
                    occupancy: described(
                      'Occupancy at the end of the bucket, or at the closing when the group closed within it.',
                      { type: 'integer', minimum: 0 },
                    ),
                    peak: described(
                      'The largest occupancy at the 5-minute marks within the bucket (and at a closing within it).',
                      { type: 'integer', minimum: 0 },
                    ),
                    capacity: described(
                      "The group's capacity in force at the bucket's last sample (its history: a past bucket keeps the capacity of its time); absent when it had none then.",
                      { type: 'integer', minimum: 1 },
                    ),
                    utilization: described(
                      '`occupancy` ÷ `capacity`, rounded half up to 3 decimals (0.417 is 41.7 %; above 1 is over capacity); with `capacity`.',
                      { type: 'number', minimum: 0 },
                    ),
                    peakUtilization: described(
                      'The largest utilization at the samples of the bucket, each with the capacity in force at it; absent when none had a capacity.',
                      { type: 'number', minimum: 0 },
                    ),
                  },
                }),
              }),
            },
          }),
        }),
      },
    }),
  },
};

const timestampParameter = (name: 'from' | 'to', description: string, example: string): Json => ({
  name,
  in: 'query',
  required: true,
  description,
  schema: { type: 'string', format: 'date-time' },
  example,
});

export function occupancyHistory(problem: ProblemExample): Json {
  return {
    operationId: 'getOccupancyHistory',
    tags: ['locations'],
    summary:
      'Occupancy over time per sensor group: at the end of each bucket and its peak, with utilization where a capacity is set, as JSON or CSV.',
    description:
      "From the same counting lines and opening hours as the live value, by the same rule: max(0, ins − outs) since the group's opening. At every 5-minute mark at which a group is open, the history is what the live refresh computes there. A bucket's `occupancy` is the value at its end (or at a closing within it), its `peak` the largest value at the 5-minute marks within it; a bucket in which the group was closed throughout has neither. Buckets are those of the location's time zone overlapping [from, to). JSON or CSV by Accept.",
    parameters: [
      ...insightParameters(),
      timestampParameter('from', 'Start of the range, ISO 8601 with Z or an offset.', '2024-03-31T03:00:00Z'),
      timestampParameter(
        'to',
        `End of the range (exclusive), at most ${MAX_HISTORY_DAYS} days after from.`,
        '2024-03-31T06:00:00Z',
      ),
      {
        name: 'interval',
        in: 'query',
        required: false,
        description: `Bucket length, aligned in the location's time zone (\`1d\` is the local day, 23 or 25 hours on DST days); at most ${MAX_HISTORY_BUCKETS} buckets, and ${MAX_HISTORY_VALUES} values (sensor groups × buckets).`,
        schema: { type: 'string', enum: [...HISTORY_INTERVALS], default: DEFAULT_HISTORY_INTERVAL },
        example: '1h',
      },
      ref('parameters', 'AcceptEncoding'),
      ref('parameters', 'IfNoneMatch'),
    ],
    responses: {
      '200': {
        description: 'The history of every sensor group of the location.',
        headers: getHeaders(
          cacheControl(
            'private, no-cache',
            "Today's buckets change with every crossing: revalidate with If-None-Match.",
          ),
        ),
        content: {
          'application/json': {
            schema: ref('schemas', 'OccupancyHistory'),
            examples: { hourly: { summary: 'Three hours in Berlin on the spring-forward day', value: hourly } },
          },
          'text/csv': {
            schema: { type: 'string' },
            examples: {
              hourly: {
                summary:
                  "The same as CSV (RFC 4180, CRLF): one row per group and bucket, each start in UTC and on the location's clock, a closed bucket with empty cells",
                value:
                  'sensorGroupId,sensorGroupName,timestamp,localTime,occupancy,peak,capacity,utilization,peakUtilization\r\n' +
                  '1,Entrance hall,2024-03-31T03:00:00.000Z,2024-03-31T05:00:00+02:00,,,,,\r\n' +
                  '1,Entrance hall,2024-03-31T04:00:00.000Z,2024-03-31T06:00:00+02:00,2,2,40,0.05,0.05\r\n1,Entrance hall,2024-03-31T05:00:00.000Z,2024-03-31T07:00:00+02:00,1,1,40,0.025,0.025\r\n' +
                  '3,Parking,2024-03-31T03:00:00.000Z,2024-03-31T05:00:00+02:00,1,1,,,\r\n3,Parking,2024-03-31T04:00:00.000Z,2024-03-31T06:00:00+02:00,1,1,,,\r\n3,Parking,2024-03-31T05:00:00.000Z,2024-03-31T07:00:00+02:00,1,1,,,\r\n',
              },
            },
          },
        },
      },
      '304': ref('responses', 'NotModified'),
      '400': problemResponse(
        'A parameter is missing or not allowed: every error names it (`/query/<name>`) and what is allowed.',
        {
          invalidInterval: problem('validation', `/query/interval: ${INVALID_INTERVAL}`, {
            errors: [{ path: '/query/interval', message: INVALID_INTERVAL }],
          }),
        },
      ),
      '401': ref('responses', 'Unauthorized'),
      '404': problemResponse(
        "Unknown location, another organization's, or one outside the token's location grant (the same answer).",
        { unknownLocation: problem('not-found', "There is no location 'berlin-mall'.") },
      ),
      '406': problemResponse('Accept is neither application/json nor text/csv.', {
        notAcceptable: problem('not-acceptable', 'Allowed values of Accept: application/json, text/csv.', {
          allowed: ['application/json', 'text/csv'],
        }),
      }),
      ...common,
      '503': engineUnavailable(
        problem,
        'The engine is unreachable or overloaded, or the history reached its deadline: retry after Retry-After seconds, or ask for a shorter range.',
      ),
    },
  };
}
