import { negotiateMediaType } from './negotiation';

/** What the GET endpoints answer in. */
export const JSON_MEDIA_TYPES = ['application/json'] as const;

/**
 * Accept negotiation for an endpoint that answers JSON only: no Accept, `*\/*`, `application/*` or
 * `application/json` (with `charset=utf-8` or not) pass; anything else (`text/csv`, say) is a 406
 * naming application/json (functions/commons/http/problem-middleware.ts, with `availableMediaTypes: JSON_MEDIA_TYPES`).
 */
export const jsonOnly = () => negotiateMediaType(JSON_MEDIA_TYPES);
