import type { IngestResult } from '#shared/ingest/batch';
import { NDJSON_MEDIA_TYPE } from '#shared/ingest/limits';

/** How a batch is sent again after an answer that says "not now": exponential backoff with full jitter. */
export interface RetryPolicy {
  /** Sends after the first; a batch still refused then has failed. @default 8 */
  readonly retries: number;
  /** The first backoff's ceiling; each retry doubles it. @default 500 */
  readonly baseMs: number;
  /** No backoff's ceiling is above this. @default 30000 */
  readonly capMs: number;
  /** A `Retry-After` above this is an answer not worth waiting for (the batch fails). @default 300000 */
  readonly maxRetryAfterMs: number;
  /** Each request's bound; a request that takes longer is a network failure (retried). @default 60000 */
  readonly timeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 8,
  baseMs: 500,
  capMs: 30_000,
  maxRetryAfterMs: 300_000,
  timeoutMs: 60_000,
};

export type SendOutcome =
  | { readonly kind: 'answered'; readonly result: IngestResult; readonly retries: number }
  | { readonly kind: 'failed'; readonly reason: string; readonly retries: number };

export interface Sender {
  /**
   * POSTs one gzip NDJSON batch to `/ingest/{collection}`, sending it again while the answer says to (never throws).
   */
  send(collection: string, body: Buffer): Promise<SendOutcome>;
}

/**
 * The retry rule of the ingest API (docs/ingest.md): 429, 503, any other 5xx and a network failure
 * mean nothing may have been written, or some of it was: the same batch again is always safe (the
 * endpoint writes each document once), so send it again after `Retry-After` when the answer gives one,
 * else after a backoff with full jitter (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/),
 * so that many clients pushed back at once do not return at once. Any other 4xx would be refused
 * again as it is, and a 200 with rejected lines is final: neither is sent again.
 */
export function createSender(
  api: string,
  token: string,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  sleep = delay,
  random = Math.random,
): Sender {
  const base = api.replace(/\/+$/, '');
  return {
    async send(collection, body) {
      for (let attempt = 0; ; attempt++) {
        const answer = await post(`${base}/ingest/${encodeURIComponent(collection)}`, token, body, policy.timeoutMs);
        if (answer.kind === 'answered') return { ...answer, retries: attempt };
        if (answer.kind === 'final' || attempt === policy.retries)
          return { kind: 'failed', reason: answer.reason, retries: attempt };
        const backoff = random() * Math.min(policy.capMs, policy.baseMs * 2 ** attempt);
        const wait = Math.max(backoff, answer.retryAfterMs ?? 0);
        if (wait > policy.maxRetryAfterMs)
          return {
            kind: 'failed',
            reason: `${answer.reason}; Retry-After ${wait / 1000} s is too long to wait`,
            retries: attempt,
          };
        await sleep(wait);
      }
    },
  };
}

type Answer =
  | { readonly kind: 'answered'; readonly result: IngestResult }
  | { readonly kind: 'retry'; readonly reason: string; readonly retryAfterMs?: number }
  | { readonly kind: 'final'; readonly reason: string };

async function post(url: string, token: string, body: Buffer, timeoutMs: number): Promise<Answer> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': NDJSON_MEDIA_TYPE,
        'content-encoding': 'gzip',
        accept: 'application/json',
      },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (e) {
    const error = e as Error & { cause?: { code?: string; message?: string } };
    const why =
      error.name === 'TimeoutError'
        ? `no answer within ${timeoutMs / 1000} s`
        : (error.cause?.code ?? error.cause?.message ?? error.message);
    return { kind: 'retry', reason: `network: ${why}` };
  }
  const reason = `HTTP ${response.status}${detailOf(text)}`;
  if (response.status === 200) {
    try {
      return { kind: 'answered', result: JSON.parse(text) as IngestResult };
    } catch {
      return { kind: 'final', reason: `HTTP 200 with a body that is not JSON: ${text.slice(0, 200)}` };
    }
  }
  if (response.status === 429 || response.status >= 500) {
    const retryAfterMs = retryAfter(response.headers.get('retry-after'));
    return { kind: 'retry', reason, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }
  return { kind: 'final', reason };
}

/**
 * `Retry-After` in milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable.
 */
export function retryAfter(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A problem+json answer's detail (or title), for the message that says why a batch failed. */
function detailOf(text: string): string {
  try {
    const problem = JSON.parse(text) as { detail?: unknown; title?: unknown; message?: unknown };
    const detail = problem.detail ?? problem.title ?? problem.message;
    return typeof detail === 'string' ? `: ${detail}` : '';
  } catch {
    return text ? `: ${text.slice(0, 200)}` : '';
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
