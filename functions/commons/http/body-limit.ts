import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { PayloadTooLargeError } from '#shared/errors';

/** 413 before parsing when the raw body is larger than `maxBytes`. */
export const bodyLimit = (maxBytes: number): middy.MiddlewareObj<APIGatewayProxyEventV2> => ({
  before: async ({ event }) => {
    if (!event.body) return;
    const bytes = event.isBase64Encoded ? Math.floor((event.body.length * 3) / 4) : Buffer.byteLength(event.body);
    if (bytes > maxBytes) throw new PayloadTooLargeError(maxBytes);
  },
});
