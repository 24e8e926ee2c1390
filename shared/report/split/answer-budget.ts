import { AnswerBucketsError, resultBuckets } from '../bucket-limit';
import type { EngineResult } from '../../stores/store';

/**
 * The buckets the slices of one split report may hold together, counted as each slice's result is
 * read. The request alone bounds the time buckets and the `filters` buckets under them
 * (refuseBeyondSplitFloor, before any slice runs); how many `terms` keys each time bucket has only
 * the data says. Without this count, 400 slices each within the bucket limit (a 1 s histogram × a
 * label over a month) hold 26 million buckets together, gigabytes to merge, shape and render; with it,
 * a report stops once its slices hold more than the answer may (at most that and the slices then
 * running are ever held).
 */
export class AnswerBudget {
  private held: number;

  /**
   * `max`: the most buckets the results may hold together (MAX_ANSWER_BUCKETS for a report);
   * `heldBefore`: what the answer already holds besides them (the report's own period when these
   * slices are the earlier period of a `compare` report).
   */
  constructor(
    readonly max: number,
    private readonly heldBefore = 0,
  ) {
    this.held = heldBefore;
  }

  /**
   * Counts one slice's result (of `of` slices); a 422 AnswerBucketsError once the results together hold more than
   * `max`.
   */
  take(result: EngineResult, of: number): void {
    this.held += resultBuckets(result.root);
    if (this.held <= this.max) return;
    const fmt = (x: number): string => x.toLocaleString('en');
    // Not how many slices had come back: that depends on which finished first, and the same report
    // must be answered alike on every engine and every run.
    throw new AnswerBucketsError(
      this.max,
      `Its ${fmt(of)} slices${this.heldBefore > 0 ? ', with the period it is compared with,' : ''} hold more buckets together than the ${fmt(this.max)} an answer may hold, however the report is split. ` +
        'Use a coarser dateHistogram interval, a shorter time range, or fewer series.',
      `too fine for the series of this report: its slices hold more than ${fmt(this.max)} buckets together`,
    );
  }
}
