import { SFNClient, StartSyncExecutionCommand, type StartSyncExecutionCommandOutput } from '@aws-sdk/client-sfn';

/**
 * StartSyncExecution behind a named import: `import()` of this module (not of '@aws-sdk/client-sfn',
 * whose namespace object would keep every command and schema of the package) lets esbuild drop the
 * rest of the SDK client.
 */
export function createSyncExecutionStarter(wrap: (client: SFNClient) => SFNClient = (c) => c) {
  const client = wrap(new SFNClient({}));
  return (
    stateMachineArn: string,
    input: string,
    abortSignal?: AbortSignal,
  ): Promise<StartSyncExecutionCommandOutput> =>
    client.send(new StartSyncExecutionCommand({ stateMachineArn, input }), abortSignal ? { abortSignal } : {});
}
