// A stand-in for Lambda's Node.js runtime, run by the Lambda Node.js version in a process of its own
// with the function's environment (test/integration/stack/lambda-function.ts starts it). It does
// what the runtime does with a function's code: from LAMBDA_TASK_ROOT it imports the module and
// export named by _HANDLER (`index.handler` -> index.mjs, as ESM), then runs one invocation at a
// time: sets _X_AMZN_TRACE_ID, builds the context object, awaits the handler and hands back its
// result as JSON, or the error as Lambda reports it ({ errorType, errorMessage, trace }).
//
// One thing differs from AWS on purpose: names under `.lrs.localtest` resolve to 127.0.0.1, so that
// AWS_ENDPOINT_URL_* can point the SDK at the test's local endpoints even where the SDK prefixes the
// host (StartSyncExecution calls `sync-<host>`, as it calls `sync-states.<region>.amazonaws.com`).
import dns from 'node:dns';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const LOCAL_SUFFIX = '.lrs.localtest';
const lookup = dns.lookup;
dns.lookup = function localLookup(hostname, options, callback) {
  if (typeof hostname === 'string' && hostname.endsWith(LOCAL_SUFFIX)) {
    const cb = typeof options === 'function' ? options : callback;
    const all = typeof options === 'object' && options?.all;
    process.nextTick(() => (all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)));
    return;
  }
  return lookup.call(this, hostname, options, callback);
};

const errorOf = (e) => ({
  errorType: e?.name ?? 'Error',
  errorMessage: e?.message ?? String(e),
  trace: String(e?.stack ?? '').split('\n'),
});

const [moduleName, exportName] = (process.env._HANDLER ?? 'index.handler').split('.');
let handler;
try {
  const mod = await import(pathToFileURL(join(process.env.LAMBDA_TASK_ROOT, `${moduleName}.mjs`)).href);
  handler = mod[exportName];
  if (typeof handler !== 'function') throw new TypeError(`${moduleName}.${exportName} is not a function`);
  process.send({ type: 'ready' });
} catch (e) {
  process.send({ type: 'init-error', error: errorOf(e) });
}

process.on('message', async (message) => {
  if (message.type !== 'invoke' || !handler) return;
  const { id, event, requestId, traceId, deadline } = message;
  process.env._X_AMZN_TRACE_ID = traceId;
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: message.functionArn,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: requestId,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  try {
    const result = await handler(event, context);
    // Lambda serializes the result as JSON; undefined becomes null.
    process.send({ type: 'result', id, result: result === undefined ? null : JSON.parse(JSON.stringify(result)) });
  } catch (e) {
    process.send({ type: 'error', id, error: errorOf(e) });
  }
});
