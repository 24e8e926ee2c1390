import { S3Client } from '@aws-sdk/client-s3';

/**
 * functions/commons/powertools/tracer.ts `traced`: in Lambda (tracing on) an SDK client gets the X-Ray SDK's
 * middleware, so its calls are named subsegments; elsewhere it is left untouched. The module is
 * loaded fresh for each case, as the tracer is built once per process.
 */
const XRAY_MIDDLEWARE = 'XRaySDKInstrumentation';
const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

async function middlewareOfTracedClient(): Promise<string[]> {
  let traced: typeof import('#commons/powertools/tracer').traced = async (c) => c;
  jest.isolateModules(() => {
    traced = (require('#commons/powertools/tracer') as typeof import('#commons/powertools/tracer')).traced;
  });
  const client = await traced(new S3Client({ region: 'eu-west-1' }));
  return client.middlewareStack.identify();
}

test('adds the X-Ray middleware to an SDK client inside Lambda', async () => {
  // Inside Lambda as the tracer sees it; no global HTTPS patch in the test process.
  Object.assign(process.env, {
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    POWERTOOLS_TRACE_ENABLED: 'true',
    POWERTOOLS_TRACER_CAPTURE_HTTPS_REQUESTS: 'false',
    AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
  });
  expect((await middlewareOfTracedClient()).some((m) => m.startsWith(XRAY_MIDDLEWARE))).toBe(true);
});

test('leaves the client untouched outside Lambda', async () => {
  delete process.env.AWS_EXECUTION_ENV;
  expect((await middlewareOfTracedClient()).some((m) => m.startsWith(XRAY_MIDDLEWARE))).toBe(false);
});
