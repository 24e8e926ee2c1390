import { MAX_DECODED_BYTES, MAX_LINES, MAX_SENT_BYTES, NDJSON_MEDIA_TYPE } from '../ingest/limits';
import { COLLECTIONS } from '../documents/fields';
import { common, header, problemResponse, ref, type ProblemExample } from './responses';

/** POST /ingest/{collection}: its operation, and the schemas, parameter and header only it uses. */

type Json = Record<string, unknown>;

/** A response that API Gateway may also give itself, as `{"message":"Forbidden"}` (its Lambda authorizer said no). */
const withGatewayForbidden = (response: Json & { content: Json }): Json => ({
  ...response,
  content: {
    ...response.content,
    'application/json': {
      schema: ref('schemas', 'GatewayMessage'),
      examples: {
        authorizer: { summary: "The ingest route's Lambda authorizer (deployed)", value: { message: 'Forbidden' } },
      },
    },
  },
});

const mib = (bytes: number) => `${bytes / 1024 / 1024} MiB`;
const GOOD =
  '{"id":"cam-1:000123","locationId":"berlin-mall","trackingCameraId":"berlin-mall-cam-1","label":"person","timestamp":"2024-05-01T08:00:00Z","crossedPaths":[{"id":"entrance","end":"A"}]}';
/**
 * The request body of the examples: two documents and a line naming a location the organization does not have (line 2).
 */
export const INGEST_EXAMPLE_BODY = `${GOOD}\n{"locationId":"atlantis","timestamp":"2024-05-01T08:00:01Z"}\n${GOOD.replace('000123', '000124')}\n`;

export const ingestSchemas: Record<string, Json> = {
  IngestAnswer: {
    type: 'object',
    description:
      'What became of each line of the batch. Every line is written whole or not at all; a refused line stops no other.',
    required: ['accepted', 'duplicates', 'rejected'],
    properties: {
      accepted: { type: 'integer', minimum: 0, description: 'Lines written now.' },
      duplicates: {
        type: 'integer',
        minimum: 0,
        description:
          'Lines already stored (the same `id` and content, or the same content without `id`), or given twice in the batch: nothing changed for them. A batch sent again is all duplicates.',
      },
      rejected: {
        type: 'array',
        items: ref('schemas', 'RejectedLine'),
        description: 'The lines not written, for good, in line order: sending them again as they are changes nothing.',
      },
    },
  },
  RejectedLine: {
    type: 'object',
    description: 'A line that was not written, and every reason.',
    required: ['line', 'errors'],
    properties: {
      line: { type: 'integer', minimum: 1, description: 'Its line number in the body (1-based, blank lines counted).' },
      errors: {
        type: 'array',
        description: 'Each problem of the line.',
        items: {
          type: 'object',
          required: ['path', 'message'],
          properties: {
            path: {
              type: 'string',
              description: "A JSON Pointer into the line's document (empty: the line as a whole, e.g. not JSON).",
            },
            message: {
              type: 'string',
              description:
                'What is wrong there, and what is allowed (`conflict: …` for an `id` written first with other content).',
            },
          },
        },
      },
    },
  },
};

export const ingestParameters: Record<string, Json> = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Optional (draft-ietf-httpapi-idempotency-key-header): 1 to 255 visible ASCII characters, quoted or bare. A request with a key used in the last 24 hours by the same organization gets the first answer again (with `Idempotent-Replayed: true`) when its body is the same, 422 when it is another, 409 while the first is still being answered. Counts are right without it: every document is written once.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^"?[\\x21-\\x7e]{1,255}"?$' },
    example: '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
  },
};

export const ingestHeaders: Record<string, Json> = {
  'Idempotent-Replayed': {
    description:
      '`true` when the answer is the stored answer of an earlier request with the same Idempotency-Key and body.',
    schema: { type: 'string', enum: ['true'] },
    example: 'true',
  },
};

export function ingestDocuments(problem: ProblemExample): Json {
  const retry = { 'Retry-After': header('Retry-After'), 'X-Request-Id': header('X-Request-Id') };
  return {
    operationId: 'ingestDocuments',
    tags: ['ingest'],
    summary: 'Writes a batch of documents (NDJSON, gzip allowed), each exactly once.',
    description:
      `Needs a token with the ingest scope (a machine client's); the documents are the caller's organization's: a line may leave \`organizationId\` out, never name another, and must name one of its locations. At most ${MAX_LINES.toLocaleString('en-US')} lines and ${mib(MAX_DECODED_BYTES)} of NDJSON once decoded, ${mib(MAX_SENT_BYTES)} as sent. ` +
      'Retry rule: 429, 503, any other 5xx and a network failure: send the same batch again (after Retry-After when given, else with exponential backoff and jitter), which is always safe, since each document is identified by its `id` (else its content) and written once; 200 (even with rejected lines) and any other 4xx: never send it again as it is.',
    parameters: [
      {
        name: 'collection',
        in: 'path',
        required: true,
        description: "The collection the documents belong to (the names a report's `source` uses).",
        schema: ref('schemas', 'Collection'),
        example: COLLECTIONS[0],
      },
      ref('parameters', 'IdempotencyKey'),
      {
        name: 'Content-Encoding',
        in: 'header',
        required: false,
        description: 'gzip, or none.',
        schema: { type: 'string', enum: ['gzip'] },
        example: 'gzip',
      },
    ],
    requestBody: {
      required: true,
      description: `One JSON document of the collection per line (its schema is the collection's documents', as the ingest CLI reads them), UTF-8; blank lines are skipped and counted. Compress it with Content-Encoding: gzip.`,
      content: {
        [NDJSON_MEDIA_TYPE]: {
          schema: { type: 'string', description: 'Newline-delimited JSON documents.' },
          examples: {
            twoEventsAndABadLine: {
              summary: 'Two movement events and a line for an unknown location',
              value: INGEST_EXAMPLE_BODY,
            },
          },
        },
      },
    },
    responses: {
      '200': {
        description:
          'Every line written, already there, or refused for good (`rejected`): never send this batch again.',
        headers: {
          'Idempotent-Replayed': header('Idempotent-Replayed'),
          'Cache-Control': {
            description: 'An answer to a write is never reused.',
            schema: { type: 'string' },
            example: 'no-store',
          },
          Vary: header('Vary'),
          'X-Request-Id': header('X-Request-Id'),
        },
        content: {
          'application/json': {
            schema: ref('schemas', 'IngestAnswer'),
            examples: {
              oneRejected: {
                summary: 'The answer to the request example',
                value: {
                  accepted: 2,
                  duplicates: 0,
                  rejected: [
                    {
                      line: 2,
                      errors: [
                        {
                          path: '/locationId',
                          message: 'is not a location of your organization (GET /locations lists them)',
                        },
                      ],
                    },
                  ],
                },
              },
              sentAgain: {
                summary: 'The same batch again',
                value: {
                  accepted: 0,
                  duplicates: 2,
                  rejected: [
                    {
                      line: 2,
                      errors: [
                        {
                          path: '/locationId',
                          message: 'is not a location of your organization (GET /locations lists them)',
                        },
                      ],
                    },
                  ],
                },
              },
            },
          },
        },
      },
      '400': problemResponse(
        'No body, a body that is not gzip when it says so or not UTF-8, or an Idempotency-Key of another form.',
        {
          noBody: problem('malformed-body', 'A body of NDJSON documents, one per line, is required.'),
          badKey: problem(
            'validation',
            '/headers/idempotency-key: must be 1 to 255 visible ASCII characters (a UUID, say)',
            {
              errors: [
                {
                  path: '/headers/idempotency-key',
                  message: 'must be 1 to 255 visible ASCII characters (a UUID, say)',
                },
              ],
            },
          ),
        },
      ),
      '401': ref('responses', 'Unauthorized'),
      '403': withGatewayForbidden(
        problemResponse(
          'The token has no ingest scope (a user\'s token reads, and cannot write). Deployed with the stack\'s user pool, the route\'s Lambda authorizer refuses such a token before the service sees it, and a revoked machine client\'s too: API Gateway answers `{"message":"Forbidden"}` as application/json (docs/aws.md, Machine clients). The local server answers problem+json.',
          {
            readingToken: problem(
              'forbidden',
              "Writing documents needs a token with the scope lrs/ingest (a machine client's).",
              { scope: 'lrs/ingest' },
            ),
          },
          {
            'WWW-Authenticate': {
              description: 'The scope the request needs.',
              schema: { type: 'string' },
              example: 'Bearer error="insufficient_scope", scope="lrs/ingest"',
            },
          },
        ),
      ),
      '404': problemResponse('No such collection.', {
        unknownCollection: problem(
          'not-found',
          "There is no collection 'events'; documents go to /ingest/movementEvents, /ingest/parkingLotStats, /ingest/parkingEvents.",
        ),
      }),
      '406': ref('responses', 'NotAcceptableJson'),
      '409': problemResponse(
        'A request with the same Idempotency-Key is still being answered: send it again after Retry-After to get its answer.',
        {
          inProgress: problem(
            'idempotency-key-in-use',
            'A request with this Idempotency-Key is still being answered; send it again in a moment to get its answer.',
          ),
        },
        { 'Retry-After': header('Retry-After') },
      ),
      '413': problemResponse(
        `Over ${MAX_LINES.toLocaleString('en-US')} lines, ${mib(MAX_SENT_BYTES)} as sent or ${mib(MAX_DECODED_BYTES)} decoded; \`detail\` says which. Send fewer lines per request.`,
        {
          tooManyLines: problem(
            'payload-too-large',
            'A request may carry at most 10,000 documents (lines); send the rest in another request.',
          ),
        },
      ),
      '415': problemResponse(
        'Body not declared as application/x-ndjson (UTF-8), or a Content-Encoding other than gzip.',
        {
          otherType: problem(
            'unsupported-media-type',
            'Content-Type application/json is not supported; the body must be application/x-ndjson.',
            { allowed: [NDJSON_MEDIA_TYPE] },
          ),
          otherCoding: problem(
            'unsupported-media-type',
            'Content-Encoding br is not supported (gzip or none); the body must be application/x-ndjson.',
            { allowed: [NDJSON_MEDIA_TYPE] },
          ),
        },
        {
          Accept: {
            description: 'The media type a body may have: application/x-ndjson.',
            schema: { type: 'string' },
            example: NDJSON_MEDIA_TYPE,
          },
          'Accept-Encoding': {
            description: 'With a Content-Encoding refused: the codings a body may have.',
            schema: { type: 'string' },
            example: 'gzip',
          },
        },
      ),
      '422': problemResponse(
        'The Idempotency-Key was used in the last 24 hours for another body: use a new key for a new body.',
        {
          keyReused: problem(
            'idempotency-key-reused',
            'This Idempotency-Key was used for a request with another body in the last 24 hours; use a new key for a new body.',
          ),
        },
      ),
      ...common,
      '503': {
        description:
          'The store is unreachable or pushed back (OpenSearch busy): some, all or none of the batch may be written. Send the same batch again after Retry-After seconds. Deployed, API Gateway answers `{"message":"Service Unavailable"}` itself when the function does not answer within 30 s.',
        headers: retry,
        content: {
          'application/problem+json': {
            schema: ref('schemas', 'Problem'),
            examples: {
              busy: problem(
                'engine-unavailable',
                'The search engine is busy and wrote part of the batch; send the same batch again shortly.',
              ),
            },
          },
          'application/json': {
            schema: ref('schemas', 'GatewayMessage'),
            examples: { timeout: { value: { message: 'Service Unavailable' } } },
          },
        },
      },
    },
  };
}
