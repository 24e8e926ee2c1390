/**
 * What the alert evaluator (./evaluate.ts) hands on: one value per state change of a rule, the
 * contract with the webhook delivery (shared/webhooks/sink.ts implements an {@link AlertSink}).
 *
 * `id` is stable per transition: `<ruleId>:<startedAt ISO>:<started|ended>`, so that a re-run (a
 * retry after a failed publish, a second evaluator) hands on the same id and a delivery derives the
 * same `webhook-id` from it: a receiver can tell a repeat from a new event. The end of a condition
 * has the same `type` as its start, with `data.state: 'ended'`: an endpoint subscribed to
 * `occupancy.above` gets both. `occurredAt`: when the evaluator saw the change (ISO 8601 UTC).
 * `data.value`: what was measured (the group's occupancy, the lot's occupied spaces); `capacity`;
 * `percent`: value ÷ capacity × 100 to one decimal; `threshold`: the level compared with (percent or
 * count, as the rule says), the clear level when ended (docs/alerts.md).
 */
export type AlertEvent = {
  type: AlertEventType;
  id: string;
  organizationId: string;
  occurredAt: string;
  data: {
    state: 'started' | 'ended';
    ruleId: string;
    locationId: string;
    sensorGroupId?: number;
    parkingLotId?: string;
    cameraId?: string;
    value?: number;
    capacity?: number;
    percent?: number;
    threshold?: number;
  };
};

export type AlertEventType = 'occupancy.above' | 'parking.full' | 'sensor.silent';

/** Where the evaluator hands its events; a rejection leaves them pending, handed on again at the next run. */
export interface AlertSink {
  publish(events: readonly AlertEvent[]): Promise<void>;
}

/** The id of a transition (see {@link AlertEvent}). */
export const transitionId = (ruleId: string, startedAt: string, state: 'started' | 'ended'): string =>
  `${ruleId}:${startedAt}:${state}`;

/** Each event as one log line (`alert`), then on to `next` (the webhook delivery). */
export function loggingSink(
  log: (message: string, extra: Record<string, unknown>) => void,
  next?: AlertSink,
): AlertSink {
  return {
    async publish(events) {
      for (const event of events) log('alert', { event });
      await next?.publish(events);
    },
  };
}
