import { DEFAULT_CHANGE_PAGE, MAX_CHANGE_PAGE } from '../locations/change-page';
import { cacheControl, common, getHeaders, header, problemResponse, ref, type ProblemExample } from './responses';

/**
 * The administration API: the location resource (`/locations/{locationId}`, its change log) and
 * gateways (`/ingest-clients`). Every problem example here is asked of the real handler by
 * test/unit/openapi/examples.test.ts and must come back byte for byte.
 */

export type Json = Record<string, unknown>;

export const ADMIN_ORG = 'a0000000-0000-4000-8000-00000000000a';
const EVERY_DAY = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
    d,
    [{ open: '08:00', close: '20:00' }],
  ]),
);

/** The body of the examples: what an admin sends to create berlin-mall. */
export const LOCATION_EXAMPLE_INPUT = {
  id: 'berlin-mall',
  name: 'Berlin Mall',
  type: 'shopping-mall',
  timezone: 'Europe/Berlin',
  sensorGroups: [
    {
      id: 1,
      name: 'Entrance hall',
      capacity: 400,
      lines: [
        { trackingCameraId: 'cam-1', lineId: 'door-north', inDirection: 'A' },
        { trackingCameraId: 'cam-2', lineId: 'door-south', inDirection: 'B' },
      ],
      openingHours: EVERY_DAY,
    },
  ],
};

const CREATED_AT = '2024-03-01T09:30:00.000Z';
const created = {
  id: 'berlin-mall',
  name: 'Berlin Mall',
  organizationId: ADMIN_ORG,
  type: 'shopping-mall',
  timezone: 'Europe/Berlin',
  createdBy: 'user-1',
  updatedBy: 'user-1',
  createdAt: CREATED_AT,
  updatedAt: CREATED_AT,
  sensorGroups: [
    { ...LOCATION_EXAMPLE_INPUT.sensorGroups[0], capacityHistory: [{ since: CREATED_AT, capacity: 400 }] },
  ],
};
const replaced = {
  ...created,
  updatedBy: 'user-2',
  updatedAt: '2024-04-02T07:00:00.000Z',
  sensorGroups: [
    {
      ...LOCATION_EXAMPLE_INPUT.sensorGroups[0],
      capacity: 450,
      capacityHistory: [
        { since: CREATED_AT, capacity: 400 },
        { since: '2024-04-02T07:00:00.000Z', capacity: 450 },
      ],
    },
  ],
};

const locationIdParameter: Json = {
  name: 'locationId',
  in: 'path',
  required: true,
  description: "A location of the caller's organization, within its grant.",
  schema: { type: 'string' },
  example: 'berlin-mall',
};
export const clientIdParameter: Json = {
  name: 'clientId',
  in: 'path',
  required: true,
  description: 'A gateway of the caller’s organization (the id `POST /ingest-clients` answered).',
  schema: { type: 'string' },
  example: 'local-6c1d9b1e0f3a47a2b8c9d0e1',
};
export const ifMatch = (required: boolean): Json => ({
  name: 'If-Match',
  in: 'header',
  required,
  description: required
    ? 'The ETag of the version this changes (`"3"`), or `*` to change whatever is there: without it 428, with a stale one 412. Compared strongly: a weak tag (`W/"3"`) never matches.'
    : 'Optional: the ETag of the version to delete (412 when it is stale), or `*`.',
  schema: { type: 'string' },
  example: '"1"',
});

export const json = (schema: Json, examples: Record<string, { summary?: string; value: unknown }>) => ({
  'application/json': { schema, examples },
});
const locationHeaders = {
  ETag: header('LocationETag'),
  'Cache-Control': cacheControl('private, no-cache', 'Revalidate with If-None-Match.'),
  Vary: header('Vary'),
  'X-Request-Id': header('X-Request-Id'),
};
export const noStore = {
  'Cache-Control': cacheControl('no-store', 'Never reused.'),
  'X-Request-Id': header('X-Request-Id'),
};
const jsonBodyErrors = (problem: ProblemExample, what: string) => ({
  '413': problemResponse(`Body larger than ${what}.`, {
    tooLarge: problem('payload-too-large', `The body must be at most ${what === '1 MiB' ? 1048576 : 4096} bytes.`),
  }),
  '415': problemResponse('Body not declared as application/json (or sent with a Content-Encoding).', {
    otherType: problem(
      'unsupported-media-type',
      'Content-Type text/plain is not supported; the body must be application/json.',
      { allowed: ['application/json'] },
    ),
  }),
});
export const notAdmin = (problem: ProblemExample, organizationWide: string | undefined) =>
  problemResponse(
    organizationWide
      ? "The token's role is not admin (a viewer's), or it is an admin limited to some locations: this needs an admin of the whole organization."
      : "The token's role is not admin (a viewer's, or a machine client's).",
    {
      viewer: problem('forbidden', "This needs the admin role (the group 'admin'); this token's role is viewer."),
      ...(organizationWide
        ? {
            limitedAdmin: problem(
              'forbidden',
              `${organizationWide} needs an admin of the whole organization; this token is limited to the location nyc-store.`,
            ),
          }
        : {}),
    },
    { 'WWW-Authenticate': header('WWW-Authenticate') },
  );
/**
 * The answers every admin write of a JSON body shares: no token, not an admin (`organizationWide`: what needs an
 * admin of the whole organization), not JSON or too large (`bodyLimit`), the common statuses, API Gateway's timeout.
 */
export const adminWriteErrors = (problem: ProblemExample, organizationWide: string | undefined, bodyLimit: string) => ({
  '401': ref('responses', 'Unauthorized'),
  '403': notAdmin(problem, organizationWide),
  '406': ref('responses', 'NotAcceptableJson'),
  ...jsonBodyErrors(problem, bodyLimit),
  ...common,
  '503': ref('responses', 'GatewayTimeout'),
});
const unknownLocation = (problem: ProblemExample) =>
  problemResponse(
    "Unknown location, another organization's, or one outside the token's location grant (the same answer).",
    { unknownLocation: problem('not-found', "There is no location 'berlin-mall'.") },
  );
const invalidBody = (problem: ProblemExample) =>
  problemResponse(
    'The body breaks the location schema or its cross-checks (every error with its JSON Pointer in `errors`: the page shows each at its field), or is not JSON.',
    {
      invalidCapacity: problem('validation', '/sensorGroups/0/capacity: must be an integer from 1 to 1000000', {
        errors: [{ path: '/sensorGroups/0/capacity', message: 'must be an integer from 1 to 1000000' }],
      }),
    },
  );

export function getLocation(problem: ProblemExample): Json {
  return {
    operationId: 'getLocation',
    tags: ['locations'],
    summary: 'One location with its name, sensor groups, capacities, lines and opening hours.',
    description:
      'The fields of `GET /locations`, then the sensor groups in id order, each with its capacity (when set), the capacity history the service keeps, its lines (`inDirection` says which way is in) and opening hours. The strong ETag names the revision: send it back in If-Match to change the location. Any user of the organization within its grant.',
    parameters: [locationIdParameter, ref('parameters', 'IfNoneMatch')],
    responses: {
      '200': {
        description: 'The location.',
        headers: locationHeaders,
        content: json(ref('schemas', 'LocationResource'), { berlinMall: { value: created } }),
      },
      '304': ref('responses', 'NotModified'),
      '401': ref('responses', 'Unauthorized'),
      '404': unknownLocation(problem),
      '406': ref('responses', 'NotAcceptableJson'),
      ...common,
      '503': ref('responses', 'GatewayTimeout'),
    },
  };
}

export function createLocation(problem: ProblemExample): Json {
  return {
    operationId: 'createLocation',
    tags: ['administration'],
    summary: 'Creates a location with its sensor groups (admin of the whole organization).',
    description:
      'The body is the desired state, as a location of an import file (`npm run import-locations`), checked by the same schema and cross-checks. The write is one transaction with its change log entry; `createdBy` and `updatedBy` are the token’s subject. The location’s live occupancy is refreshed at once. An id that a deleted location had is refused (409) unless `reuseDeletedId=true`: its documents remain and would count as the new location’s.',
    parameters: [
      {
        name: 'reuseDeletedId',
        in: 'query',
        required: false,
        description: 'Take back the id of a deleted location knowingly (its documents then count as this one’s).',
        schema: { type: 'boolean', default: false },
        example: false,
      },
    ],
    requestBody: {
      required: true,
      content: json(ref('schemas', 'LocationInput'), {
        berlinMall: { summary: 'A mall with one counted area of 400 people', value: LOCATION_EXAMPLE_INPUT },
      }),
    },
    responses: {
      '201': {
        description: 'Created: the location as `GET /locations/{locationId}` answers it.',
        headers: {
          ...locationHeaders,
          Location: {
            description: 'The new location’s path.',
            schema: { type: 'string' },
            example: '/locations/berlin-mall',
          },
        },
        content: json(ref('schemas', 'LocationResource'), { berlinMall: { value: created } }),
      },
      '400': invalidBody(problem),
      ...adminWriteErrors(problem, 'Creating a location', '1 MiB'),
      '409': problemResponse('The id is taken, or a deleted location had it (`reason`).', {
        exists: problem(
          'conflict',
          "Location 'berlin-mall' exists already; change it with PUT /locations/berlin-mall.",
          { reason: 'exists' },
        ),
        deleted: problem(
          'conflict',
          "Location 'berlin-mall' was deleted at 2024-04-01T10:00:00.000Z, and its documents remain: a location created with this id would count them as its own. Choose another id, or send the request again with reuseDeletedId=true to take the id back knowingly.",
          { reason: 'deleted', deletedAt: '2024-04-01T10:00:00.000Z' },
        ),
      }),
    },
  };
}

export function replaceLocation(problem: ProblemExample): Json {
  return {
    operationId: 'replaceLocation',
    tags: ['administration'],
    summary: 'Replaces a location with the desired state (admin), If-Match required.',
    description:
      'The whole desired state, as for POST: groups left out are removed, a capacity changed is kept in the group’s history from now on (a past period keeps the capacity it had). If-Match must name the current revision (428 without it, 412 when stale); the write is one transaction with its change log entry, `updatedBy` the token’s subject. A body equal to what is stored changes nothing (the same ETag). An admin limited to some locations may change those.',
    parameters: [locationIdParameter, ifMatch(true)],
    requestBody: {
      required: true,
      content: json(ref('schemas', 'LocationInput'), {
        moreRoom: {
          summary: 'The entrance hall now holds 450',
          value: {
            ...LOCATION_EXAMPLE_INPUT,
            sensorGroups: [{ ...LOCATION_EXAMPLE_INPUT.sensorGroups[0], capacity: 450 }],
          },
        },
      }),
    },
    responses: {
      '200': {
        description: 'The location as it now is, with its new ETag.',
        headers: locationHeaders,
        content: json(ref('schemas', 'LocationResource'), { moreRoom: { value: replaced } }),
      },
      '400': invalidBody(problem),
      ...adminWriteErrors(problem, undefined, '1 MiB'),
      '404': unknownLocation(problem),
      '412': problemResponse(
        'If-Match names another revision, or the location changed while this was written: nothing was written.',
        {
          stale: problem(
            'precondition-failed',
            'If-Match does not name the current revision of location \'berlin-mall\' (its ETag is "2"); read it again and send the change with that ETag.',
          ),
        },
      ),
      '422': problemResponse(
        'The change writes and removes more sensor groups than one transaction holds: make it in two steps.',
        {
          tooLarge: problem(
            'write-too-large',
            'This change writes 50 and removes 50 sensor groups, more than the 97 one write may change. Nothing was written: make it in two steps (remove the old groups first, then add the new ones).',
            { maxGroupChanges: 97 },
          ),
        },
      ),
      '428': problemResponse('No If-Match.', {
        noIfMatch: problem(
          'precondition-required',
          "PUT /locations/berlin-mall needs If-Match with the ETag of the version it changes (or If-Match: * to change whatever is there), so that no one's change is overwritten unseen.",
        ),
      }),
    },
  };
}

export function deleteLocation(problem: ProblemExample): Json {
  return {
    operationId: 'deleteLocation',
    tags: ['administration'],
    summary: 'Deletes a location (admin of the whole organization): 204, then 404.',
    description:
      'The location, its sensor groups and its live occupancy go, in one transaction with the change log entry; a deletion record stays, so that the id is not taken again unawares (POST answers 409 unless `reuseDeletedId=true`). Its documents stay in the report store until retention removes them: reports of the organization still count them, and `GET /locations/{locationId}/changes` still answers its log. If-Match is honoured when sent.',
    parameters: [locationIdParameter, ifMatch(false)],
    responses: {
      '204': { description: 'Deleted.', headers: noStore },
      '401': ref('responses', 'Unauthorized'),
      '403': notAdmin(problem, 'Deleting a location'),
      '404': unknownLocation(problem),
      '412': problemResponse('If-Match names another revision.', {
        stale: problem(
          'precondition-failed',
          'If-Match does not name the current revision of location \'berlin-mall\' (its ETag is "2"); read it again and send the change with that ETag.',
        ),
      }),
      ...common,
      '503': ref('responses', 'GatewayTimeout'),
    },
  };
}

export function listLocationChanges(problem: ProblemExample): Json {
  const page = {
    changes: [
      {
        revision: 2,
        at: '2024-04-02T07:00:00.000Z',
        by: 'user-2',
        action: 'updated',
        changes: [{ path: '/sensorGroups/1/capacity', before: 400, after: 450 }],
      },
      {
        revision: 1,
        at: CREATED_AT,
        by: 'user-1',
        action: 'created',
        changes: [
          { path: '/name', after: 'Berlin Mall' },
          { path: '/type', after: 'shopping-mall' },
          { path: '/timezone', after: 'Europe/Berlin' },
          { path: '/sensorGroups/1', after: LOCATION_EXAMPLE_INPUT.sensorGroups[0] },
        ],
      },
    ],
  };
  return {
    operationId: 'listLocationChanges',
    tags: ['locations'],
    summary: 'The change log of a location, newest first: who, when, which fields, before → after.',
    description: `One entry per write (its revision, time, the token's subject, the action and each field's before and after; sensor groups named by their id). A deleted location keeps its log. Pages of \`limit\` entries (default ${DEFAULT_CHANGE_PAGE}); \`next\` links the older page.`,
    parameters: [
      locationIdParameter,
      {
        name: 'limit',
        in: 'query',
        required: false,
        description: `Entries per page, 1 to ${MAX_CHANGE_PAGE}.`,
        schema: { type: 'integer', minimum: 1, maximum: MAX_CHANGE_PAGE, default: DEFAULT_CHANGE_PAGE },
        example: 20,
      },
      {
        name: 'before',
        in: 'query',
        required: false,
        description: 'Only entries before this revision (the `next` link gives it).',
        schema: { type: 'integer', minimum: 1 },
        example: 3,
      },
      ref('parameters', 'AcceptEncoding'),
      ref('parameters', 'IfNoneMatch'),
    ],
    responses: {
      '200': {
        description: 'A page of the log.',
        headers: getHeaders(cacheControl('private, no-cache', 'Revalidate with If-None-Match.')),
        content: json(ref('schemas', 'LocationChangePage'), { twoChanges: { value: page } }),
      },
      '304': ref('responses', 'NotModified'),
      '400': problemResponse('`limit` or `before` is not allowed.', {
        badLimit: problem('validation', `/query/limit: must be a whole number from 1 to ${MAX_CHANGE_PAGE}`, {
          errors: [{ path: '/query/limit', message: `must be a whole number from 1 to ${MAX_CHANGE_PAGE}` }],
        }),
      }),
      '401': ref('responses', 'Unauthorized'),
      '404': unknownLocation(problem),
      '406': ref('responses', 'NotAcceptableJson'),
      ...common,
      '503': ref('responses', 'GatewayTimeout'),
    },
  };
}
