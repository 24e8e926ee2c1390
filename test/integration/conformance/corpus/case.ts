import type { ReportMediaType } from '#shared/report/query-report';

/**
 * What a hand-computed expectation pins down (the engines must also agree with each other). Every case
 * has one: two engines agreeing on a wrong answer must not pass.
 */
export interface Expected {
  readonly status: number;
  /** JSON bodies are compared parsed; CSV bodies as text. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Error answers: the problem type. */
  readonly type?: string;
  /** Histogram answers: the number of rows. */
  readonly rows?: number;
  /** Histogram answers: the timestamps of the first and the last row. */
  readonly span?: readonly [string, string];
  /**
   * Histogram answers too long to write out: exactly the rows holding some series, in order (every
   * other row must be timestamp-only). With `rows` and `span` this pins the whole answer down.
   */
  readonly nonEmpty?: readonly unknown[];
}

/** One request of the corpus, answered by both engines over the fixture documents. */
export interface ConformanceCase {
  /** A sentence: what the request shows. */
  readonly name: string;
  readonly body: unknown;
  /** @default application/json */
  readonly accept?: ReportMediaType;
  /** @default ORG_A */
  readonly organizationId?: string;
  /** Engine termsCap. @default DEFAULT_LIMITS.termsCap */
  readonly termsCap?: number;
  /** Worked out by hand from test/fixtures/documents.ts, never copied from an engine's output. */
  readonly expected: Expected;
}

export const range = (field: string, from?: string | number, to?: string | number) => ({
  type: 'range',
  field,
  ...(from === undefined ? {} : { from }),
  ...(to === undefined ? {} : { to }),
});

export const terms = (field: string, values: string[]) => ({ type: 'terms', field, values });
