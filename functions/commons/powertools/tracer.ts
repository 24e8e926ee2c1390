import type { Tracer } from '@aws-lambda-powertools/tracer';
import type middy from '@middy/core';
import { lazy } from '../clients/lazy';
import { SERVICE_NAME } from '#shared/service-identity';

/**
 * Whether the Powertools tracer would record anything in this process, by its own rule: inside
 * Lambda (AWS_EXECUTION_ENV), not under SAM local or the Amplify mock, and POWERTOOLS_TRACE_ENABLED
 * not `false`. Elsewhere (tests, the local server, the bench) the tracer is never loaded.
 */
export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const executionEnv = env.AWS_EXECUTION_ENV ?? '';
  return (
    executionEnv !== '' &&
    executionEnv !== 'AWS_Lambda_amplify-mock' &&
    !env.AWS_SAM_LOCAL &&
    env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() !== 'false'
  );
}

/**
 * The process's Powertools tracer, built once on the first invocation, not at import: it loads the
 * X-Ray SDK (aws-xray-sdk-core), which alone costs more start time than a whole handler may
 * (bench/bundles.ts). Built before the handler body runs, it still captures every HTTPS call (the
 * AWS SDK's and OpenSearch's) as a subsegment.
 */
const loadTracer = lazy(async () => (await import('./tracer-instance')).createTracer(SERVICE_NAME));

/** The tracer, for annotations and subsegments; undefined where tracing is off. */
export async function tracer(): Promise<Tracer | undefined> {
  return tracingEnabled() ? (await loadTracer()).tracer : undefined;
}

/**
 * Powertools' `captureLambdaHandler` middleware (handler subsegment, ColdStart and Service
 * annotations, errors as metadata) over the lazily built tracer; responses are not recorded (report
 * bodies run to megabytes). A no-op where tracing is off. Use it first, as Powertools does.
 */
export function captureLambdaHandler(): middy.MiddlewareObj {
  const inner = async () => (tracingEnabled() ? (await loadTracer()).middleware : undefined);
  return {
    before: async (request) => {
      await (await inner())?.before?.(request);
    },
    after: async (request) => {
      await (await inner())?.after?.(request);
    },
    onError: async (request) => {
      await (await inner())?.onError?.(request);
    },
  };
}

/**
 * An AWS SDK v3 client whose calls appear in traces as named subsegments (service, operation,
 * retries, request id) instead of bare HTTPS calls; the same client, untouched, where tracing is off.
 */
export async function traced<T>(client: T): Promise<T> {
  const t = await tracer();
  return t ? t.captureAWSv3Client(client) : client;
}
