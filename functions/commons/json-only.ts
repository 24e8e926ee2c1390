import httpContentNegotiation from '@middy/http-content-negotiation';
import httpHeaderNormalizer from '@middy/http-header-normalizer';

/** What the GET endpoints answer in. */
export const JSON_MEDIA_TYPES = ['application/json'] as const;

/**
 * Accept negotiation for an endpoint that answers JSON only: no Accept, `*\/*`, `application/*` or
 * `application/json` pass; anything else (`text/csv`, say) is a 406 naming application/json
 * (functions/commons/problem-middleware.ts, with `availableMediaTypes: JSON_MEDIA_TYPES`).
 */
export const jsonOnly = () => [
  httpHeaderNormalizer(),
  httpContentNegotiation({ availableMediaTypes: [...JSON_MEDIA_TYPES], parseCharsets: false, parseEncodings: false, parseLanguages: false }),
];
