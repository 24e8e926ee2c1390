import '../split/with-resolvers';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { ExecutionTimeoutError, StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import type { LambdaError } from './lambda-function';

/**
 * The parts of AWS the stack test stands in for, on loopback, under names the functions' runtime
 * resolves to 127.0.0.1 (`*.lrs.localtest`, see ./lambda-runtime.mjs):
 *
 * - HTTPS in front of the test's OpenSearch node (which speaks plain HTTP), with a certificate made
 *   for the test and trusted by the functions through NODE_EXTRA_CA_CERTS, so the functions' own
 *   `https://<domain endpoint>` and SigV4 signing run as in AWS;
 * - Step Functions' StartSyncExecution, running the state machine definition from the template with
 *   aws-local-stepfunctions, its Lambda tasks invoking the functions' assets (the one AWS API the
 *   service calls that cannot run here; the definition itself is still executed).
 */
export const LOCAL_DOMAIN = 'lrs.localtest';

const listen = (server: Server | ReturnType<typeof createTlsServer>): Promise<number> =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

export interface LocalEndpoint {
  /** e.g. `https://opensearch.lrs.localtest:41234` */
  readonly url: string;
  close(): Promise<void>;
}

export interface TlsFront extends LocalEndpoint {
  /** The certificate (PEM file) to trust: NODE_EXTRA_CA_CERTS. */
  readonly caFile: string;
}

/**
 * TLS in front of a plain HTTP service (`target`, e.g. `http://127.0.0.1:9200`), as
 * `https://<name>.lrs.localtest:<port>`; the certificate names 127.0.0.1 too, for processes that do not resolve
 * `*.lrs.localtest` (the CLIs).
 */
export async function startTlsFront(name: string, target: string): Promise<TlsFront> {
  const dir = mkdtempSync(join(tmpdir(), 'lrs-tls-'));
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      cert,
      '-subj',
      `/CN=${name}.${LOCAL_DOMAIN}`,
      '-addext',
      `subjectAltName=DNS:*.${LOCAL_DOMAIN},IP:127.0.0.1`,
    ],
    { stdio: 'ignore' },
  );
  const { hostname, port } = new URL(target);
  const server = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (socket) => {
    const upstream = connect(Number(port), hostname);
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  const listening = await listen(server);
  return {
    url: `https://${name}.${LOCAL_DOMAIN}:${listening}`,
    caFile: cert,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        rmSync(dir, { recursive: true, force: true });
      }),
  };
}

/** A state machine of the template, its Lambda task resources (ARNs) invoked through `invoke`. */
export interface LocalStateMachine {
  readonly arn: string;
  readonly definition: StateMachineDefinition;
  invoke(functionArn: string, input: unknown): Promise<unknown>;
}

export interface StepFunctionsEndpoint extends LocalEndpoint {
  /** Every StartSyncExecution this endpoint answered, with its input and answer. */
  readonly executions: { readonly input: unknown; readonly status: string; readonly error?: string }[];
}

type States = Record<
  string,
  { Type: string; Resource?: string; ItemProcessor?: { States: States }; Iterator?: { States: States } }
>;

/** Task states at any depth (inside Map item processors too), by name, with their Resource. */
function taskResources(states: States): Record<string, string> {
  return Object.fromEntries(
    Object.entries(states).flatMap(([name, state]) => [
      ...(state.Type === 'Task' && state.Resource ? [[name, state.Resource] as const] : []),
      ...Object.entries(taskResources((state.ItemProcessor ?? state.Iterator)?.States ?? {})),
    ]),
  );
}

/** A Step Functions endpoint (JSON 1.0 protocol) that answers StartSyncExecution for the given machines. */
export async function startStepFunctions(machines: readonly LocalStateMachine[]): Promise<StepFunctionsEndpoint> {
  const executions: { input: unknown; status: string; error?: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(body));
      };
      const target = req.headers['x-amz-target'];
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
        stateMachineArn?: string;
        input?: string;
        name?: string;
      };
      if (target !== 'AWSStepFunctions.StartSyncExecution')
        return answer(400, { __type: 'UnknownOperationException', message: `not served here: ${target}` });
      const machine = machines.find((m) => m.arn === body.stateMachineArn);
      if (!machine)
        return answer(400, {
          __type: 'StateMachineDoesNotExist',
          message: `State Machine Does Not Exist: '${body.stateMachineArn}'`,
        });
      void runSync(machine, body.input ?? '{}').then((execution) => {
        executions.push({
          input: JSON.parse(body.input ?? '{}'),
          status: execution.status,
          ...(execution.error ? { error: execution.error } : {}),
        });
        answer(200, {
          executionArn: `${machine.arn.replace(':stateMachine:', ':express:')}:${body.name ?? 'execution'}`,
          stateMachineArn: machine.arn,
          ...execution,
        });
      });
    });
  });
  const port = await listen(server);
  return {
    url: `http://states.${LOCAL_DOMAIN}:${port}`,
    executions,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function runSync(
  machine: LocalStateMachine,
  input: string,
): Promise<{ status: string; output?: string; error?: string; cause?: string; startDate: number; stopDate?: number }> {
  const startDate = Date.now() / 1000;
  const tasks = taskResources(machine.definition.States as unknown as States);
  const handlers = Object.fromEntries(
    Object.entries(tasks).map(([name, resource]) => [
      name,
      async (event: unknown) => {
        try {
          return await machine.invoke(resource, event);
        } catch (e) {
          // A function error reaches Step Functions as Error = errorType, Cause = the error as Lambda reports it.
          const lambdaError = (e as { error?: LambdaError }).error;
          if (!lambdaError) throw e;
          const failure = new Error(JSON.stringify(lambdaError));
          failure.name = lambdaError.errorType;
          throw failure;
        }
      },
    ]),
  );
  const run = new StateMachine(machine.definition, { validationOptions: { checkArn: false } }).run(JSON.parse(input), {
    overrides: { taskResourceLocalHandlers: handlers as never },
  });
  try {
    return { status: 'SUCCEEDED', output: JSON.stringify(await run.result), startDate, stopDate: Date.now() / 1000 };
  } catch (e) {
    if (e instanceof ExecutionTimeoutError) return { status: 'TIMED_OUT', startDate };
    const failed = ((e as Error).cause ?? e) as Error;
    return { status: 'FAILED', error: failed.name, cause: failed.message, startDate, stopDate: Date.now() / 1000 };
  }
}

/** An asynchronous invocation the Lambda stand-in answered, and how the function's run ended. */
export interface AsyncInvocation {
  readonly functionName: string;
  readonly payload: unknown;
  /** Settles when the function's run has ended (as Lambda runs an Event invocation after answering 202). */
  readonly done: Promise<unknown>;
}

export interface LambdaEndpoint extends LocalEndpoint {
  readonly invocations: AsyncInvocation[];
}

/**
 * Lambda's Invoke (REST, `POST /2015-03-31/functions/<name>/invocations`) with `InvocationType:
 * Event` only, as the locations function calls it: answered 202 at once, the function's asset run
 * afterwards through `run`.
 */
export async function startLambdaInvoke(
  run: (functionName: string, payload: unknown) => Promise<unknown>,
): Promise<LambdaEndpoint> {
  const invocations: AsyncInvocation[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const name = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(req.url ?? '')?.[1];
      if (!name || req.headers['x-amz-invocation-type'] !== 'Event') {
        res.writeHead(400, {
          'content-type': 'application/json',
          'x-amzn-errortype': 'InvalidRequestContentException',
        });
        return res.end(
          JSON.stringify({
            message: `not served here: ${req.method} ${req.url} ${String(req.headers['x-amz-invocation-type'])}`,
          }),
        );
      }
      const functionName = decodeURIComponent(name);
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as unknown;
      invocations.push({ functionName, payload, done: run(functionName, payload).catch((e: unknown) => e) });
      res.writeHead(202, { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST' });
      res.end('');
    });
  });
  const port = await listen(server);
  return {
    url: `http://lambda.${LOCAL_DOMAIN}:${port}`,
    invocations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface CognitoControlPlane extends LocalEndpoint {
  /** App clients created and not deleted, by client id: their name and secret. */
  readonly clients: Map<string, { readonly name: string; readonly secret: string; readonly userPoolId: string }>;
  readonly deleted: string[];
}

/**
 * Cognito's control plane (JSON 1.1) for the two calls the ingest-clients function makes,
 * CreateUserPoolClient and DeleteUserPoolClient: the one AWS API of that function that cannot run
 * here. Its token side is ./cognito.ts.
 */
export async function startCognitoControlPlane(): Promise<CognitoControlPlane> {
  const clients = new Map<string, { name: string; secret: string; userPoolId: string }>();
  const deleted: string[] = [];
  let counter = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(body));
      };
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
        UserPoolId: string;
        ClientName?: string;
        ClientId?: string;
        AllowedOAuthScopes?: string[];
      };
      const target = req.headers['x-amz-target'];
      if (target === 'AWSCognitoIdentityProviderService.CreateUserPoolClient') {
        const ClientId = `stackclient${++counter}`;
        const ClientSecret = `secret-${counter}`;
        clients.set(ClientId, { name: body.ClientName ?? '', secret: ClientSecret, userPoolId: body.UserPoolId });
        return answer(200, {
          UserPoolClient: {
            ClientId,
            ClientSecret,
            ClientName: body.ClientName,
            UserPoolId: body.UserPoolId,
            AllowedOAuthScopes: body.AllowedOAuthScopes,
          },
        });
      }
      if (target === 'AWSCognitoIdentityProviderService.DeleteUserPoolClient') {
        if (!clients.delete(body.ClientId ?? ''))
          return answer(400, { __type: 'ResourceNotFoundException', message: 'User pool client does not exist.' });
        deleted.push(body.ClientId!);
        return answer(200, {});
      }
      return answer(400, { __type: 'UnknownOperationException', message: `not served here: ${String(target)}` });
    });
  });
  const port = await listen(server);
  return {
    url: `http://cognito-idp.${LOCAL_DOMAIN}:${port}`,
    clients,
    deleted,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** One message an SQS stand-in took: the queue it was sent to, its body and its delay. */
export interface SentMessage {
  readonly queueUrl: string;
  readonly messageId: string;
  readonly body: string;
  readonly delaySeconds: number;
}

export interface SqsEndpoint extends LocalEndpoint {
  /** What was sent, in order. */
  readonly sent: SentMessage[];
  /** The URL of a queue of the template here (`<endpoint>/123456789012/<logical id>`). */
  queueUrl(id: string): string;
}

/**
 * SQS's SendMessage and SendMessageBatch (the AWS JSON 1.0 protocol the SDK speaks), keeping what is
 * sent; the test hands the messages to the consuming function as its event source would. The one
 * AWS API of the webhook pieces that cannot run here.
 */
export async function startSqs(): Promise<SqsEndpoint> {
  const sent: SentMessage[] = [];
  let counter = 0;
  const md5 = (text: string) => createHash('md5').update(text).digest('hex');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(body));
      };
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
        QueueUrl: string;
        MessageBody?: string;
        DelaySeconds?: number;
        Entries?: { Id: string; MessageBody: string; DelaySeconds?: number }[];
      };
      const take = (messageBody: string, delaySeconds = 0) => {
        const messageId = `stack-message-${++counter}`;
        sent.push({ queueUrl: body.QueueUrl, messageId, body: messageBody, delaySeconds });
        return { MessageId: messageId, MD5OfMessageBody: md5(messageBody) };
      };
      const target = req.headers['x-amz-target'];
      if (target === 'AmazonSQS.SendMessageBatch')
        return answer(200, {
          Successful: (body.Entries ?? []).map((e) => ({ Id: e.Id, ...take(e.MessageBody, e.DelaySeconds) })),
          Failed: [],
        });
      if (target === 'AmazonSQS.SendMessage') return answer(200, take(body.MessageBody ?? '', body.DelaySeconds));
      return answer(400, {
        __type: 'com.amazonaws.sqs#UnsupportedOperation',
        message: `not served here: ${String(target)}`,
      });
    });
  });
  const port = await listen(server);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    sent,
    queueUrl: (id) => `${url}/123456789012/${id}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
