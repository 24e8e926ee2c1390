import type { Context } from 'aws-lambda';
import { Deadline } from '#shared/report/deadline';

/**
 * What an answer still needs once the engine is done (shaping, rendering up to 5.5 MiB, the
 * response): a request's deadline is the function's remaining time less this, so that work stopped
 * at its deadline is answered 503 before Lambda (or middy's timeout, a 500) ends it. The one margin
 * of every endpoint that bounds its work by a deadline (reports, occupancy history).
 */
export const RESPONSE_MARGIN_MS = 2_000;

/** The deadline of the work of one request: the function's remaining time less RESPONSE_MARGIN_MS. */
export const answerDeadline = (context: Pick<Context, 'getRemainingTimeInMillis'>): Deadline =>
  Deadline.after(context.getRemainingTimeInMillis() - RESPONSE_MARGIN_MS);
