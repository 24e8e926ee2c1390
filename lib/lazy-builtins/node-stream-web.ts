import type * as web from 'node:stream/web';
import { lazyExport } from './lazy-export';

/**
 * `node:stream/web` in the Lambda bundles (a measurable part of a cold start: bench/README.md).
 * middy imports it for response streaming, which no function here uses: it only checks
 * `body instanceof ReadableStream` on a streaming response.
 */
export const ReadableStream = lazyExport<typeof web.ReadableStream>('node:stream/web', 'ReadableStream');
