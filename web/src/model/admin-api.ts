import type { LocationChange } from '#shared/locations/changes';
import { type ExplorerApi, REVALIDATE } from './api';
import type { LocationResourceLike } from './location-form';

/** A location as the API answers it, with the ETag its next change must name (If-Match). */
export interface EditableLocation {
  readonly resource: LocationResourceLike & Record<string, unknown>;
  readonly etag: string;
}

const JSON_HEADERS = { accept: 'application/json', 'content-type': 'application/json' };

/** A gateway as `GET /ingest-clients` lists it. */
export interface Gateway {
  readonly clientId: string;
  readonly name: string;
  readonly createdAt: string;
  readonly revokedAt: string | null;
  readonly lastUsedAt: string | null;
}

/** A gateway just registered: its secret is shown this once. */
export interface RegisteredGateway extends Gateway {
  readonly clientSecret: string;
  readonly tokenUrl: string;
}

/** The administration API as the admin screen calls it (docs/admin-api.md): the explorer's calls, token and errors. */
export class AdminApi {
  constructor(private readonly api: ExplorerApi) {}

  async location(id: string): Promise<EditableLocation> {
    return editable(
      await this.api.send(`/locations/${encodeURIComponent(id)}`, {
        headers: { accept: 'application/json' },
        ...REVALIDATE,
      }),
    );
  }

  async create(body: Record<string, unknown>): Promise<EditableLocation> {
    return editable(
      await this.api.send('/locations', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) }),
    );
  }

  /** The whole desired state, for the revision `etag` names (412 when someone changed it meanwhile). */
  async replace(id: string, body: Record<string, unknown>, etag: string): Promise<EditableLocation> {
    return editable(
      await this.api.send(`/locations/${encodeURIComponent(id)}`, {
        method: 'PUT',
        headers: { ...JSON_HEADERS, 'if-match': etag },
        body: JSON.stringify(body),
      }),
    );
  }

  async remove(id: string, etag: string): Promise<void> {
    await this.api.send(`/locations/${encodeURIComponent(id)}`, { method: 'DELETE', headers: { 'if-match': etag } });
  }

  /** The newest `limit` entries of the location's change log, newest first. */
  async changes(id: string, limit = 20): Promise<readonly LocationChange[]> {
    const path = `/locations/${encodeURIComponent(id)}/changes?limit=${limit}`;
    const response = await this.api.send(path, { headers: { accept: 'application/json' }, ...REVALIDATE });
    return ((await response.json()) as { changes: LocationChange[] }).changes;
  }

  async gateways(): Promise<Gateway[]> {
    return (
      (await (
        await this.api.send('/ingest-clients', { headers: { accept: 'application/json' }, ...REVALIDATE })
      ).json()) as { clients: Gateway[] }
    ).clients;
  }

  async register(name: string): Promise<RegisteredGateway> {
    return (
      await this.api.send('/ingest-clients', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ name }) })
    ).json() as Promise<RegisteredGateway>;
  }

  async revoke(clientId: string): Promise<void> {
    await this.api.send(`/ingest-clients/${encodeURIComponent(clientId)}`, { method: 'DELETE', headers: {} });
  }
}

async function editable(response: Response): Promise<EditableLocation> {
  return {
    resource: (await response.json()) as EditableLocation['resource'],
    etag: response.headers.get('etag') ?? '*',
  };
}
