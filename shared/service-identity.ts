/**
 * Who the service is to its observability, in one place: the Lambda environment (lib/), the Powertools
 * logger, metrics and tracer (functions/commons/powertools/), the dashboard and alarms (lib/) and the
 * stack's tag all read these, so a metric is never written to one namespace and watched in another.
 */

/** Powertools service name of every function, the `service` dimension of its metrics, the stack's `service` tag. */
export const SERVICE_NAME = 'location-reporting';

/** CloudWatch namespace of the functions' own metrics. */
export const METRICS_NAMESPACE = 'LocationReporting';
