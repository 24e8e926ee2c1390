import type { Answer } from './answer';

/**
 * What the page must not draw as data. A bucket that starts after now has no documents yet, and the
 * service answers it like an empty past bucket (a count of 0): drawn as 0 it reads as "nobody came".
 */

/**
 * The answer with every bucket starting after `now` (epoch ms) emptied: a gap, not a zero (an earlier period's series
 * of a comparison is past and stays).
 */
export function withoutFuture(answer: Answer, now: number): { answer: Answer; future: number } {
  if (answer.kind !== 'timeSeries') return { answer, future: 0 };
  const future = answer.times.filter((t) => t > now).length;
  if (future === 0) return { answer, future };
  return {
    answer: {
      ...answer,
      series: answer.series.map((s) =>
        s.earlier ? s : { ...s, values: s.values.map((v, i) => ((answer.times[i] as number) > now ? null : v)) },
      ),
    },
    future,
  };
}

/** Why an answer has nothing to draw, said to the person, or undefined when it has something. */
export function emptyReason(
  answer: Answer,
  range: { readonly from: number; readonly to: number },
  now: number,
): string | undefined {
  if (range.from > now) return 'Nothing yet: the range starts after now.';
  const values =
    answer.kind === 'timeSeries' ? answer.series.flatMap((s) => s.values) : answer.entries.map(([, v]) => v);
  if (values.every((v) => v === null || v === 0))
    return 'No data: nothing was recorded in this range for these locations (closed, or no sensor reported).';
  return undefined;
}

/** What to say when a request fails, by the kind of failure: no access reads differently from a mistake. */
export function failureNote(status: number | undefined): string {
  if (status === 401)
    return 'No access: the token was refused (missing, expired or not valid here). The previous result was cleared.';
  if (status === 403 || status === 404)
    return 'No access: the service does not show this to your organization. The previous result was cleared.';
  if (status === undefined) return 'The service could not be reached. The previous result was cleared.';
  return 'The report failed; see the message in the form. The previous result was cleared.';
}
