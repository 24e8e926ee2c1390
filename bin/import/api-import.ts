import type { ImportEntry, ImportResult } from '#shared/locations/import';

/**
 * `npm run import-locations -- --api URL --token T`: the file through the administration API of a
 * running service (`npm start`, or the stack), so the file is imported while the service runs and
 * with an admin's token instead of AWS credentials. Each location is read, then created (`POST`) or
 * replaced with the ETag read (`PUT` with If-Match): the same code as the table import runs on the
 * server. Ids of deleted locations are looked for first (their change log answers, the location
 * does not) and refused before anything is written, unless `reuseDeletedIds`.
 */
export interface ApiImportOptions {
  readonly api: string;
  readonly token: string;
  readonly reuseDeletedIds: boolean;
  /** @default fetch */
  readonly fetch?: typeof fetch;
}

/** A refusal of the API: its status and problem, for the CLI to print. */
export class ApiImportError extends Error {
  constructor(
    readonly locationId: string,
    readonly status: number,
    readonly problem: { readonly detail?: string; readonly errors?: readonly { path: string; message: string }[] },
    readonly written: number,
  ) {
    super(`${locationId}: ${status} ${problem.detail ?? ''}`.trim());
    this.name = 'ApiImportError';
  }
}

interface Answer {
  readonly status: number;
  readonly etag: string | null;
  readonly json: Record<string, unknown>;
}

export async function importThroughApi(
  entries: readonly ImportEntry[],
  options: ApiImportOptions,
): Promise<ImportResult[]> {
  const base = options.api.endsWith('/') ? options.api : `${options.api}/`;
  const call = async (
    method: string,
    path: string,
    init: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> => {
    const response = await (options.fetch ?? fetch)(new URL(path, base), {
      method,
      headers: {
        authorization: `Bearer ${options.token}`,
        accept: 'application/json',
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      etag: response.headers.get('etag'),
      json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
  };
  const path = (id: string) => `locations/${encodeURIComponent(id)}`;
  // Everything is read first: a deleted id, or a refusal of the token, stops the import before it writes.
  const current = new Map<string, Answer>();
  for (const entry of entries) {
    const read = await call('GET', path(entry.id));
    if (read.status !== 200 && read.status !== 404) throw new ApiImportError(entry.id, read.status, read.json, 0);
    if (
      read.status === 404 &&
      !options.reuseDeletedIds &&
      (await call('GET', `${path(entry.id)}/changes`)).status === 200
    ) {
      throw new ApiImportError(
        entry.id,
        409,
        {
          detail: `location '${entry.id}' was deleted and its documents remain; choose another id, or import with --reuse-deleted-ids`,
        },
        0,
      );
    }
    current.set(entry.id, read);
  }
  const results: ImportResult[] = [];
  for (const entry of entries) {
    const read = current.get(entry.id)!;
    const body = { ...entry.input, id: entry.id };
    const written =
      read.status === 404
        ? await call('POST', `locations${options.reuseDeletedIds ? '?reuseDeletedId=true' : ''}`, { body })
        : await call('PUT', path(entry.id), { body, headers: { 'if-match': read.etag ?? '*' } });
    if (written.status !== 200 && written.status !== 201)
      throw new ApiImportError(entry.id, written.status, written.json, results.length);
    const groups = (json: Record<string, unknown>) =>
      new Map(((json.sensorGroups ?? []) as { id: number }[]).map((g) => [g.id, JSON.stringify(g)]));
    const [before, after] = [groups(read.json), groups(written.json)];
    const unchanged = written.status === 200 && written.etag === read.etag;
    results.push({
      organizationId: String(written.json.organizationId),
      id: entry.id,
      outcome: written.status === 201 ? 'created' : unchanged ? 'unchanged' : 'updated',
      groupsWritten: unchanged ? 0 : [...after].filter(([id, g]) => before.get(id) !== g).length,
      groupsDeleted: [...before.keys()].filter((id) => !after.has(id)).length,
    });
  }
  return results;
}
