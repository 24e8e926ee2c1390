import { createHash, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { EndpointSecret } from './model';

/**
 * Signatures as Standard Webhooks fixes them (spec/standard-webhooks.md, "Signature scheme" and
 * "Webhook headers"): `webhook-signature` is a space-separated list of `v1,<base64 of HMAC-SHA256 of
 * "<webhook-id>.<webhook-timestamp>.<body>">`, keyed with the base64-decoded part of the `whsec_`
 * secret. The signing itself is the `standardwebhooks` package's (the reference implementation).
 */

/** Secret size: 32 random bytes (the spec asks 24 to 64). */
const SECRET_BYTES = 32;

/** A new signing secret: `whsec_` and the base64 of 32 random bytes. */
export const newSecret = (): string => `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;

/** How long a rotated-out secret still signs, beside the new one: 24 hours. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/** The secrets that sign at `now`: the current one and those rotated out less than the overlap ago. */
export const signingSecrets = (secrets: readonly EndpointSecret[], now: Date): string[] =>
  secrets.filter((s) => s.expiresAt === null || Date.parse(s.expiresAt) > now.getTime()).map((s) => s.secret);

/** The three headers of one attempt: `webhook-timestamp` is the attempt's, in whole seconds. */
export type SignedHeaders = {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
};

export function signDelivery(secrets: readonly string[], id: string, at: Date, body: string): SignedHeaders {
  if (secrets.length === 0) throw new Error('an endpoint has no secret to sign with');
  const seconds = new Date(Math.floor(at.getTime() / 1000) * 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(seconds.getTime() / 1000),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(id, seconds, body)).join(' '),
  };
}

/**
 * The webhook-id of what one event makes for one endpoint: the same for every re-publication of the
 * event (so a second publish writes nothing new), and never containing `.` (the spec asks ids that
 * cannot shift the signed content's fields).
 */
export const deliveryIdOf = (eventId: string, endpointId: string): string =>
  `msg_${createHash('sha256').update(`${eventId}\n${endpointId}`).digest('base64url').slice(0, 27)}`;

/** A webhook-id of its own (test deliveries). */
export const randomDeliveryId = (): string => `msg_${randomBytes(20).toString('base64url').slice(0, 27)}`;
