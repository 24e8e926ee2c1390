import * as z from 'zod/mini';
import { described, named } from '../openapi/registry';
import { parseOrThrow } from '../validation';

/**
 * Webhook endpoints and their deliveries (Standard Webhooks,
 * https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md):
 * what an organization's admin registers, and what the service sends.
 */

/** The event types an endpoint may subscribe to: the alert events (shared/alerts/events.ts). */
export const WEBHOOK_EVENT_TYPES = ['occupancy.above', 'parking.full', 'sensor.silent'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The type of the delivery `POST /webhook-endpoints/{id}/test` makes: sent whatever the endpoint subscribes to. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** Longest URL taken (a URL is no place for data). */
export const MAX_URL_LENGTH = 2048;

/** One signing secret of an endpoint: `whsec_` and the base64 of 32 random bytes. */
export interface EndpointSecret {
  readonly secret: string;
  readonly createdAt: string;
  /** ISO 8601 from when it no longer signs (a rotated-out secret), or null: the current one. */
  readonly expiresAt: string | null;
}

/** An endpoint as stored. */
export interface WebhookEndpoint {
  readonly id: string;
  readonly organizationId: string;
  readonly url: string;
  readonly events: readonly WebhookEventType[];
  readonly description: string;
  /** Whether deliveries go to it: false when an admin paused it, or the service disabled it. */
  readonly enabled: boolean;
  /**
   * Why the service disabled it (`gone`: it answered 410; `failing`: its deliveries failed throughout the retry
   * schedule), or null.
   */
  readonly disabledReason: 'gone' | 'failing' | null;
  /** When it was disabled (by either), or null while enabled. */
  readonly disabledAt: string | null;
  readonly revision: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly createdBy: string | null;
  readonly updatedBy: string | null;
  /** Newest first; only the first is current, the others sign until their `expiresAt`. */
  readonly secrets: readonly EndpointSecret[];
}

/**
 * What the delivery worker keeps of an endpoint apart from the endpoint's own item, so that it never
 * races an admin's revision: since when its deliveries fail (null after a success).
 */
export interface EndpointState {
  readonly failingSince: string | null;
}

export const HEALTHY: EndpointState = { failingSince: null };

/** An endpoint as the API shows it: never a secret. */
export interface WebhookEndpointView {
  readonly id: string;
  readonly url: string;
  readonly events: readonly WebhookEventType[];
  readonly description: string;
  /** `enabled`, `disabled` (by an admin), or `disabled-by-service` (410 Gone, or failing deliveries). */
  readonly status: 'enabled' | 'disabled' | 'disabled-by-service';
  readonly disabledReason: WebhookEndpoint['disabledReason'];
  readonly disabledAt: string | null;
  /** The ETag's revision. */
  readonly revision: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly createdBy: string | null;
  readonly updatedBy: string | null;
}

/** The view is the endpoint's item alone, so its strong ETag (the revision) names it whole. */
export function viewOf(endpoint: WebhookEndpoint): WebhookEndpointView {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    status: endpoint.enabled ? 'enabled' : endpoint.disabledReason ? 'disabled-by-service' : 'disabled',
    disabledReason: endpoint.disabledReason,
    disabledAt: endpoint.disabledAt,
    revision: endpoint.revision,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
    createdBy: endpoint.createdBy,
    updatedBy: endpoint.updatedBy,
  };
}

const EVENT_LIST = `one or more of ${WEBHOOK_EVENT_TYPES.join(', ')}`;

/** The body of `POST /webhook-endpoints` and `PUT /webhook-endpoints/{id}`. */
export const WebhookEndpointInputSchema = named(
  z.strictObject({
    url: described(
      z
        .string()
        .check(
          z.minLength(1, 'must be an https URL'),
          z.maxLength(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`),
        ),
      'Where deliveries are POSTed: an `https` URL whose host resolves to public addresses only (`http` to a loopback address is allowed by the local server). No credentials in the URL, no fragment.',
    ),
    events: described(
      z
        .array(z.enum(WEBHOOK_EVENT_TYPES, `must be ${EVENT_LIST}`))
        .check(z.minLength(1, `must list ${EVENT_LIST}`), z.maxLength(WEBHOOK_EVENT_TYPES.length * 4, 'is too long')),
      `The event types delivered to the endpoint: ${EVENT_LIST}.`,
    ),
    description: z.optional(
      described(
        z.string().check(z.maxLength(200, 'must be at most 200 characters')),
        'What the endpoint is for (at most 200 characters). @default ""',
      ),
    ),
    enabled: z.optional(
      described(
        z.boolean(),
        'false pauses deliveries; true (re-)enables an endpoint, also one the service disabled. @default true',
      ),
    ),
  }),
  'WebhookEndpointInput',
  'A webhook endpoint to create or replace.',
);

export interface WebhookEndpointInput {
  readonly url: string;
  readonly events: readonly WebhookEventType[];
  readonly description: string;
  readonly enabled: boolean;
}

export function validateEndpointInput(json: unknown): WebhookEndpointInput {
  const input = parseOrThrow(WebhookEndpointInputSchema, json);
  return {
    url: input.url,
    events: [...new Set(input.events)].sort() as WebhookEventType[],
    description: input.description ?? '',
    enabled: input.enabled ?? true,
  };
}
