import { cacheControl, common, getHeaders, ref } from './responses';

type Json = Record<string, unknown>;

const L = 'a0000000-0000-4000-8000-00000000000a';
const location = (id: string, name: string, type: string, timezone: string) => ({
  id,
  name,
  organizationId: L,
  type,
  timezone,
  createdBy: null,
  updatedBy: null,
  createdAt: '2024-03-01T09:30:00.000Z',
  updatedAt: '2024-03-01T09:30:00.000Z',
});

/** `GET /locations`: the organization's locations within the caller's grant. */
export function listLocations(): Json {
  return {
    operationId: 'listLocations',
    tags: ['locations'],
    summary: "The caller's organization's locations within its grant, ordered by id.",
    description:
      'Each location with the fields of the spec, and its `name` after the id. A token limited to some locations (`custom:locations`) lists those only. The answer carries a weak ETag: a client that polls sends it back in If-None-Match and gets 304 with no body while the locations are the same.',
    parameters: [ref('parameters', 'AcceptEncoding'), ref('parameters', 'IfNoneMatch')],
    responses: {
      '200': {
        description: 'Locations',
        headers: getHeaders(cacheControl('private, no-cache', 'Reuse the answer only after a 304.')),
        content: {
          'application/json': {
            schema: { type: 'array', items: ref('schemas', 'Location') },
            examples: {
              twoLocations: {
                value: [
                  location('berlin-mall', 'Berlin Mall', 'shopping-mall', 'Europe/Berlin'),
                  location('nyc-store', 'New York store', 'store', 'America/New_York'),
                ],
              },
            },
          },
        },
      },
      '304': ref('responses', 'NotModified'),
      '401': ref('responses', 'Unauthorized'),
      '406': ref('responses', 'NotAcceptableJson'),
      ...common,
      '503': ref('responses', 'GatewayTimeout'),
    },
  };
}
