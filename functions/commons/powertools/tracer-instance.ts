import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';

/**
 * The Powertools tracer and its middleware, in one module so that a bundle loads them (and the X-Ray
 * SDK under them) as one chunk, on first use (functions/commons/powertools/tracer.ts).
 */
export function createTracer(serviceName: string) {
  const tracer = new Tracer({ serviceName });
  return { tracer, middleware: captureLambdaHandler(tracer, { captureResponse: false }) };
}
