import { cacheControl, common, engineUnavailable, getHeaders, ref, type ProblemExample } from './responses';

/** `GET /insights/overview`: every location at a glance. */

type Json = Record<string, unknown>;

const described = (description: string, schema: Json): Json => ({ description, ...schema });
const instant = (description: string): Json => described(description, { type: 'string', format: 'date-time' });
const count = (description: string): Json => described(description, { type: 'integer', minimum: 0 });

const day = (what: string, to: string, hourly: string): Json =>
  described(what, {
    type: 'object',
    required: ['from', 'to', 'count', 'hourly'],
    properties: {
      from: instant("The start of the location's local day (ISO 8601 UTC)."),
      to: instant(to),
      count: count('Movement events in [from, to).'),
      hourly: described(hourly, { type: 'array', items: { type: 'integer', minimum: 0 } }),
    },
  });

export const overviewSchema: Json = {
  type: 'object',
  description: 'Every location the caller may see, at one instant.',
  required: ['at', 'locations'],
  properties: {
    at: instant('The instant every count runs up to: now (ISO 8601 UTC).'),
    locations: described('Ordered by id.', {
      type: 'array',
      items: described('One location.', {
        type: 'object',
        required: ['id', 'timezone', 'occupancy', 'today', 'lastWeek'],
        properties: {
          id: described('The location id.', { type: 'string' }),
          timezone: described('Its IANA time zone: its days and hours are counted in it.', { type: 'string' }),
          occupancy: described(
            'People now: the live value of every open sensor group with current data, together; and how full those groups are where they have a capacity. A closed group counts neither people nor capacity.',
            {
              type: 'object',
              required: ['people', 'groups', 'sensorGroups'],
              properties: {
                people: count('People in those groups together.'),
                groups: count('How many groups are counted; 0 when every group is closed or has no current data.'),
                capacity: described(
                  'The capacities of the counted groups that have one, added up; absent when none of them has one.',
                  { type: 'integer', minimum: 1 },
                ),
                utilization: described(
                  'People in the counted groups that have a capacity ÷ `capacity`, rounded half up to 3 decimals (above 1 is over capacity); with `capacity`. People in a counted group without a capacity are in `people` but not in this share: it is partial when some of `sensorGroups` have no `capacity`.',
                  { type: 'number', minimum: 0 },
                ),
                sensorGroups: described(
                  'Each counted group as `GET /locations/{locationId}/insights/live` answers it, by id.',
                  { type: 'array', items: ref('schemas', 'OccupancyItem') },
                ),
              },
            },
          ),
          today: day(
            'Today, in the location’s time zone, up to now.',
            'Now (`at`).',
            'Movement events per local hour from `from` up to now; the last hour is the one under way (a DST day has 23 or 25 hours).',
          ),
          lastWeek: day(
            'The same weekday a week before, counted up to the same wall-clock time as now (09:32 against last Monday’s 09:32, whatever a DST change in between did).',
            'The same wall-clock time as now, a week before.',
            'Movement events per local hour of that whole day.',
          ),
        },
      }),
    }),
  },
};

/**
 * Berlin at 12:00 CEST on Europe's spring-forward day, New York at 06:00 EDT
 * (test/integration/occupancy/overview.test.ts).
 */
const example = {
  at: '2024-03-31T10:00:00.000Z',
  locations: [
    {
      id: 'berlin-mall',
      timezone: 'Europe/Berlin',
      occupancy: {
        people: 3,
        groups: 2,
        capacity: 8,
        utilization: 0.25,
        sensorGroups: [
          { sensorGroup: { id: 1, name: 'Entrance hall' }, occupancy: 2, capacity: 8, utilization: 0.25 },
          { sensorGroup: { id: 3, name: 'Parking' }, occupancy: 1 },
        ],
      },
      today: {
        from: '2024-03-30T23:00:00.000Z',
        to: '2024-03-31T10:00:00.000Z',
        count: 4,
        hourly: [1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1],
      },
      lastWeek: {
        from: '2024-03-23T23:00:00.000Z',
        to: '2024-03-24T11:00:00.000Z',
        count: 2,
        hourly: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
      },
    },
    {
      id: 'nyc-store',
      timezone: 'America/New_York',
      occupancy: { people: 0, groups: 0, sensorGroups: [] },
      today: { from: '2024-03-31T04:00:00.000Z', to: '2024-03-31T10:00:00.000Z', count: 2, hourly: [1, 0, 0, 0, 0, 1] },
      lastWeek: {
        from: '2024-03-24T04:00:00.000Z',
        to: '2024-03-24T10:00:00.000Z',
        count: 1,
        hourly: [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      },
    },
  ],
};

export function sitesOverview(problem: ProblemExample): Json {
  return {
    operationId: 'getSitesOverview',
    tags: ['locations'],
    summary: 'Every location at a glance: people now, and today so far beside the same time last week, by hour.',
    description:
      "One answer for every location the caller may see, so a page of many sites makes one request, not several per site. For each: people now (the live endpoint's entries of its open groups, added up, and each of them), how full it is (the people of the open groups with a capacity over their capacities together), and movement events today (the location's own day, in its time zone) up to now, beside the same weekday a week before up to the same wall-clock time, each also per local hour (the week before's whole day, to draw today against). A location's numbers are exactly those of a report over its own day in its own zone. Cache-Control lasts until the next occupancy refresh has written, as the live answer's; If-None-Match with the ETag gives 304 while the answer is the same.",
    parameters: [ref('parameters', 'AcceptEncoding'), ref('parameters', 'IfNoneMatch')],
    responses: {
      '200': {
        description: 'Every location, ordered by id.',
        headers: getHeaders(
          cacheControl(
            'private, max-age=60',
            'Fresh until the next occupancy refresh has written (at 10:00:00 that is at 10:01:00).',
          ),
        ),
        content: {
          'application/json': {
            schema: ref('schemas', 'SitesOverview'),
            examples: {
              twoSites: { summary: 'Berlin on the spring-forward day, New York before opening', value: example },
            },
          },
        },
      },
      '304': ref('responses', 'NotModified'),
      '401': ref('responses', 'Unauthorized'),
      '406': ref('responses', 'NotAcceptableJson'),
      ...common,
      '503': engineUnavailable(
        problem,
        'The engine is unreachable or overloaded, or the counts reached their deadline: retry after Retry-After seconds.',
      ),
    },
  };
}
