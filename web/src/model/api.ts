import type { Problem } from '#shared/errors';
import type { Location } from '#shared/locations/model';
import type { LiveInsights } from '#shared/occupancy/live-insights';
import type { SitesOverview } from '#shared/occupancy/overview';
import type { GroupLines } from './lines';
import type { ReportRequest } from '#shared/report/schema/request';
import { toProblem } from './problems';
import { answerSourceOf, type AnswerSource } from './source';

/** A failed call: the service's problem+json. */
export class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
    this.name = 'ProblemError';
  }
}

export interface ReportResult<T> {
  readonly body: T;
  /** `X-Report-Truncated: true`: some breakdown had more values than the service's cap. */
  readonly truncated: boolean;
  /**
   * `Server-Timing`: answered from rollups or, and why, from the documents; undefined when the service says nothing.
   */
  readonly source?: AnswerSource;
}

/** A location as `GET /locations/{id}` answers it: what the dashboard reads of it. */
export interface LocationDetail {
  readonly id: string;
  readonly name?: string;
  readonly timezone: string;
  readonly sensorGroups?: readonly (GroupLines & { readonly capacity?: number })[];
}

/** Live occupancy and how long it stays current (the answer's `Cache-Control: max-age`). */
export interface LiveResult {
  readonly body: LiveInsights;
  readonly maxAgeSeconds: number | undefined;
}

/**
 * A request the browser revalidates with its cache (If-None-Match) rather than answer from it (fetch's `cache:
 * 'no-cache'`).
 */
export const REVALIDATE: object = { cache: 'no-cache' };

/** Seconds of `max-age` in a Cache-Control header. */
export function maxAgeOf(cacheControl: string | null): number | undefined {
  const m = /(?:^|,)\s*max-age=(\d+)\s*(?:,|$)/i.exec(cacheControl ?? '');
  return m ? Number(m[1]) : undefined;
}

/**
 * The public API as the page calls it: same origin, the caller's bearer token, nothing else. Every
 * non-2xx answer becomes a ProblemError.
 */
export class ExplorerApi {
  constructor(
    /** The bearer token to send; a promise when it may be renewed first (web/src/auth.ts). */
    private readonly token: () => string | Promise<string>,
    private readonly base = '',
    private readonly fetchFn: typeof fetch = (...args) => fetch(...args),
  ) {}

  async locations(): Promise<Location[]> {
    return (await this.call('/locations', { headers: { accept: 'application/json' } })).json() as Promise<Location[]>;
  }

  /**
   * One location with its sensor groups (`GET /locations/{id}`: names, capacities, counting lines with
   * their in direction); undefined when the location is gone (404).
   */
  async location(locationId: string): Promise<LocationDetail | undefined> {
    try {
      return (await (
        await this.call(`/locations/${encodeURIComponent(locationId)}`, { headers: { accept: 'application/json' } })
      ).json()) as LocationDetail;
    } catch (e) {
      if (e instanceof ProblemError && e.problem.status === 404) return undefined;
      throw e;
    }
  }

  /** Every site at a glance (`GET /insights/overview`), and how long the answer stays current. */
  async overview(): Promise<{ readonly body: SitesOverview; readonly maxAgeSeconds: number | undefined }> {
    const response = await this.call('/insights/overview', { headers: { accept: 'application/json' } });
    return {
      body: (await response.json()) as SitesOverview,
      maxAgeSeconds: maxAgeOf(response.headers.get('cache-control')),
    };
  }

  async liveOccupancy(locationId: string): Promise<LiveResult> {
    // Revalidated (If-None-Match, 304 while the same): a capacity changed in the admin screen shows at once, not after
    // max-age.
    const response = await this.call(`/locations/${encodeURIComponent(locationId)}/insights/live?filter=occupancy`, {
      headers: { accept: 'application/json' },
      ...REVALIDATE,
    });
    return {
      body: (await response.json()) as LiveInsights,
      maxAgeSeconds: maxAgeOf(response.headers.get('cache-control')),
    };
  }

  /** Occupancy per sensor group over [from, to) (epoch ms) in buckets of `interval`. */
  async occupancyHistory(
    locationId: string,
    from: number,
    to: number,
    interval: string,
    accept: 'application/json' | 'text/csv' = 'application/json',
  ): Promise<Response> {
    const query = new URLSearchParams({
      filter: 'occupancy',
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      interval,
    });
    return this.call(`/locations/${encodeURIComponent(locationId)}/insights/history?${query}`, { headers: { accept } });
  }

  async report(request: ReportRequest): Promise<ReportResult<unknown>> {
    const response = await this.post(request, 'application/json');
    const source = answerSourceOf(response.headers.get('server-timing'));
    return {
      body: await response.json(),
      truncated: response.headers.get('x-report-truncated') === 'true',
      ...(source ? { source } : {}),
    };
  }

  async reportCsv(request: ReportRequest): Promise<ReportResult<string>> {
    const response = await this.post(request, 'text/csv');
    return { body: await response.text(), truncated: response.headers.get('x-report-truncated') === 'true' };
  }

  /**
   * Any call of the API with the caller's token (the admin screen's, web/src/model/admin-api.ts); a non-2xx answer is a
   * ProblemError.
   */
  send(path: string, init: RequestInit & { headers: Record<string, string> }): Promise<Response> {
    return this.call(path, init);
  }

  private post(request: ReportRequest, accept: string): Promise<Response> {
    return this.call('/reports:query', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify(request),
    });
  }

  private async call(path: string, init: RequestInit & { headers: Record<string, string> }): Promise<Response> {
    const token = (await this.token()).trim();
    const headers = { ...init.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) };
    const response = await this.fetchFn(`${this.base}${path}`, { ...init, headers });
    if (!response.ok) {
      throw new ProblemError(
        toProblem(response.status, response.statusText, response.headers.get('content-type'), await response.text()),
      );
    }
    return response;
  }
}

/** Refreshes follow the service's 5-minute cadence. */
export const REFRESH_PERIOD_SECONDS = 300;

/**
 * When to ask for live occupancy again: when the answer stops being current (its max-age runs to just
 * after the service's next refresh), else one refresh period; never sooner than 5 s.
 */
export const refreshDelayMs = (maxAgeSeconds: number | undefined): number =>
  Math.max(5, Math.min(maxAgeSeconds ?? REFRESH_PERIOD_SECONDS, 2 * REFRESH_PERIOD_SECONDS)) * 1000;
