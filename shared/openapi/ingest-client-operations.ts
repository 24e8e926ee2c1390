import { ADMIN_ORG, adminWriteErrors, clientIdParameter, json, noStore, notAdmin, type Json } from './admin-operations';
import { cacheControl, common, getHeaders, problemResponse, ref, type ProblemExample } from './responses';

/**
 * The administration API's gateways (`/ingest-clients`); the problem examples are asked of the real handler
 * (test/unit/openapi/examples.test.ts).
 */

const clientView = {
  clientId: 'local-6c1d9b1e0f3a47a2b8c9d0e1',
  organizationId: ADMIN_ORG,
  name: 'Berlin entrance gateway',
  createdAt: '2024-03-01T09:45:00.000Z',
  revokedAt: null,
  lastUsedAt: '2024-03-04T16:20:00.000Z',
};

export function registerIngestClient(problem: ProblemExample): Json {
  return {
    operationId: 'registerIngestClient',
    tags: ['administration'],
    summary: 'Registers a gateway: its client id and secret, shown once (admin of the whole organization).',
    description:
      'A machine client of the organization: in AWS a Cognito app client with the client-credentials grant and the scope `lrs/ingest`, locally credentials of the local server. It exchanges its id and secret at `tokenUrl` for an hour-long access token, which may only write documents (`POST /ingest/{collection}`). The same records as `npm run ingest-client -- create`. Store the secret now: it is never shown again.',
    requestBody: {
      required: true,
      content: json(ref('schemas', 'IngestClientInput'), { gateway: { value: { name: 'Berlin entrance gateway' } } }),
    },
    responses: {
      '201': {
        description: 'Registered.',
        headers: noStore,
        content: json(ref('schemas', 'RegisteredIngestClient'), {
          gateway: {
            value: {
              ...clientView,
              lastUsedAt: null,
              clientSecret: 'Yv3l0cSg4bWc8QHk6o2oJ5mRr7tV9wXz1aB3dE5fG7h',
              tokenUrl: 'http://localhost:3000/oauth2/token',
              scope: 'lrs/ingest',
            },
          },
        }),
      },
      '400': problemResponse('The name is missing or not allowed.', {
        badName: problem(
          'validation',
          '/name: must be 1 to 128 letters, digits, spaces or + = , . @ - _ (say, the site of the gateway)',
          {
            errors: [
              {
                path: '/name',
                message: 'must be 1 to 128 letters, digits, spaces or + = , . @ - _ (say, the site of the gateway)',
              },
            ],
          },
        ),
      }),
      ...adminWriteErrors(problem, 'Registering a gateway', '4 KiB'),
    },
  };
}

export function listIngestClients(problem: ProblemExample): Json {
  return {
    operationId: 'listIngestClients',
    tags: ['administration'],
    summary: 'The organization’s gateways, revoked ones too, with their last use (admin of the whole organization).',
    description:
      'In client id order. `lastUsedAt` is when the gateway last sent a batch, to within a minute; never its secret.',
    parameters: [ref('parameters', 'AcceptEncoding'), ref('parameters', 'IfNoneMatch')],
    responses: {
      '200': {
        description: 'The gateways.',
        headers: getHeaders(cacheControl('private, no-cache', 'Revalidate with If-None-Match.')),
        content: json(ref('schemas', 'IngestClientList'), { oneGateway: { value: { clients: [clientView] } } }),
      },
      '304': ref('responses', 'NotModified'),
      '401': ref('responses', 'Unauthorized'),
      '403': notAdmin(problem, 'Listing gateways'),
      '406': ref('responses', 'NotAcceptableJson'),
      ...common,
      '503': ref('responses', 'GatewayTimeout'),
    },
  };
}

export function revokeIngestClient(problem: ProblemExample): Json {
  return {
    operationId: 'revokeIngestClient',
    tags: ['administration'],
    summary: 'Revokes a gateway (admin of the whole organization): no new token, its tokens refused.',
    description:
      'The record is marked revoked first (no new token is issued; the ingest route refuses its tokens, in AWS within the authorizer’s cache time of 5 minutes), then its credentials are deleted. Revoking a revoked gateway again answers 204 too.',
    parameters: [clientIdParameter],
    responses: {
      '204': { description: 'Revoked.', headers: noStore },
      '401': ref('responses', 'Unauthorized'),
      '403': notAdmin(problem, 'Revoking a gateway'),
      '404': problemResponse("An unknown gateway, or another organization's (the same answer).", {
        unknownClient: problem('not-found', "There is no ingest client 'local-6c1d9b1e0f3a47a2b8c9d0e1'."),
      }),
      ...common,
      '503': ref('responses', 'GatewayTimeout'),
    },
  };
}
