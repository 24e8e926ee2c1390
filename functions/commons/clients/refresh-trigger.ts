import { ENV } from '../env';
import { lazy } from './lazy';

/** Refreshes one location's live occupancy now, after a change to it (its groups, hours or lines). */
export type RefreshTrigger = (organizationId: string, locationId: string) => Promise<void>;

/** The event the refresh function takes to refresh some locations only (functions/refresh-occupancy.ts). */
export interface LocationRefreshEvent {
  readonly source: 'lrs.locations';
  readonly locations: readonly { readonly organizationId: string; readonly locationId: string }[];
}

const lambdaClient = lazy(async () => {
  const { LambdaClient } = await import('@aws-sdk/client-lambda');
  return new LambdaClient({});
});

/**
 * In AWS: the refresh function (REFRESH_FUNCTION_NAME), invoked asynchronously (`InvocationType:
 * Event`: the write's answer does not wait for the count) with the location; unset, nothing (the
 * schedule refreshes it within 5 minutes).
 */
const invokeRefreshFunction: RefreshTrigger = async (organizationId, locationId) => {
  const name = process.env[ENV.refreshFunctionName];
  if (!name) return;
  const [{ InvokeCommand }, client] = await Promise.all([import('@aws-sdk/client-lambda'), lambdaClient()]);
  const event: LocationRefreshEvent = { source: 'lrs.locations', locations: [{ organizationId, locationId }] };
  await client.send(
    new InvokeCommand({ FunctionName: name, InvocationType: 'Event', Payload: Buffer.from(JSON.stringify(event)) }),
  );
};

let provided: RefreshTrigger | undefined;

/** Puts an in-process refresh in place of the Lambda one: the local server does (bin/local-server.ts). */
export function provideRefreshTrigger(trigger: RefreshTrigger): void {
  provided = trigger;
}

/** The process's refresh trigger. */
export const refreshTrigger = (): RefreshTrigger => provided ?? invokeRefreshFunction;
