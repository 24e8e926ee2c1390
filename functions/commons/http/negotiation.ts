import type middy from '@middy/core';
import httpContentNegotiation from '@middy/http-content-negotiation';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { Context } from 'aws-lambda';

/**
 * Each answer type as it is offered to @middy/http-content-negotiation: with the parameters its
 * answers have. Its matcher (negotiator's) takes an Accept range with parameters, such as
 * `text/csv; charset=utf-8`, only for an offer carrying those same parameters, and a bare offer for
 * none, so offering the bare type answered 406 to a client asking for exactly what it gets. Offered
 * with them, a range without parameters still matches (only the range's own parameters are compared,
 * case-insensitively), and one asking for something else (`charset=latin1`, `header=absent`) is 406.
 * JSON is always UTF-8 (RFC 8259); CSV answers are UTF-8 with a header row (RFC 4180, 3).
 */
const OFFERED_AS: Readonly<Record<string, string>> = {
  'application/json': 'application/json; charset=utf-8',
  'text/csv': 'text/csv; charset=utf-8; header=present',
};

/** What http-content-negotiation leaves on the context; after negotiateMediaType, the bare type. */
export type NegotiatedContext<T extends string> = Context & { preferredMediaType?: T };

/**
 * Accept negotiation among `types` (most preferred first when Accept allows several equally):
 * header names lower-cased, the best type on `context.preferredMediaType` as one of `types` (no
 * parameters), or a 406 from the library that problemErrors answers as problem+json naming `types`.
 */
export function negotiateMediaType(types: readonly string[]): middy.MiddlewareObj[] {
  const offered = types.map((type) => OFFERED_AS[type] ?? type);
  return [
    httpHeaderNormalizer() as middy.MiddlewareObj,
    httpContentNegotiation({
      availableMediaTypes: offered,
      parseCharsets: false,
      parseEncodings: false,
      parseLanguages: false,
    }) as middy.MiddlewareObj,
    {
      before: async ({ context }) => {
        const negotiated = context as NegotiatedContext<string>;
        if (negotiated.preferredMediaType !== undefined)
          negotiated.preferredMediaType = types[offered.indexOf(negotiated.preferredMediaType)];
      },
    },
  ];
}
