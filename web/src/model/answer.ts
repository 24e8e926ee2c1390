/**
 * A report answer as the page draws it: a time series (one value per bucket and series) or named
 * numbers. Series names and values are the API's own; the page only lines them up.
 */

export interface Series {
  readonly name: string;
  /** One per bucket; null where the answer has no value (an absent stat). */
  readonly values: readonly (number | null)[];
  /** A series of the earlier period of a comparison: its values are past, whatever the bucket's time. */
  readonly earlier?: boolean;
  /** For an earlier series, the index of the current series it is compared with (drawn in its colour, dashed). */
  readonly pairOf?: number;
  /** In a table, a column under a shared group heading (`Main entrance` over `today` and `a week before`). */
  readonly heading?: { readonly group: string; readonly label: string };
}

export interface TimeSeriesAnswer {
  readonly kind: 'timeSeries';
  /** Bucket starts, epoch ms. */
  readonly times: readonly number[];
  readonly series: readonly Series[];
}

export interface NamedNumbersAnswer {
  readonly kind: 'namedNumbers';
  readonly entries: readonly (readonly [name: string, value: number])[];
}

export type Answer = TimeSeriesAnswer | NamedNumbersAnswer;

/**
 * Lines up a JSON answer. In a time series a series that is absent from a bucket had no documents
 * there: a count is 0, a stat has no value (`absent`). The series come in the order the buckets name
 * them (each bucket lists its series in the answer's order; a series first seen later goes after
 * the one before it in that bucket), which is the order of the CSV's columns.
 */
export function readAnswer(body: unknown, absent: 'zero' | 'gap'): Answer {
  if (isComparison(body)) return readComparison(body, absent);
  if (Array.isArray(body)) {
    const rows = body as readonly Record<string, unknown>[];
    const names = seriesOrder(rows.map((row) => Object.keys(row).filter((k) => k !== 'timestamp')));
    const fill = absent === 'zero' ? 0 : null;
    return {
      kind: 'timeSeries',
      times: rows.map((row) => Date.parse(String(row.timestamp))),
      series: names.map((name) => ({
        name,
        values: rows.map((row) => (typeof row[name] === 'number' ? (row[name] as number) : fill)),
      })),
    };
  }
  if (body !== null && typeof body === 'object') {
    return {
      kind: 'namedNumbers',
      entries: Object.entries(body).filter((e): e is [string, number] => typeof e[1] === 'number'),
    };
  }
  throw new TypeError('a report answer is an array of buckets or an object of numbers');
}

/**
 * One order for names listed in several orders. Each list's order is kept: a new name goes after its
 * predecessor in its list and before its successor. Where that leaves a choice (the lists never put
 * two names side by side), code-unit order decides, as the service orders terms keys.
 */
export function seriesOrder(lists: readonly (readonly string[])[]): string[] {
  const order: string[] = [];
  const known = new Set<string>();
  for (const list of lists) {
    list.forEach((name, i) => {
      if (known.has(name)) return;
      known.add(name);
      const low = i > 0 ? order.indexOf(list[i - 1] as string) + 1 : 0;
      const high =
        list
          .slice(i + 1)
          .map((n) => order.indexOf(n))
          .find((j) => j >= 0) ?? order.length;
      let at = low;
      while (at < high && (order[at] as string) < name) at++;
      order.splice(at, 0, name);
    });
  }
  return order;
}

/** Cumulative sums for stacked bars: series i is the sum of series 0..i (an absent value counts as 0). */
export function stack(series: readonly Series[]): number[][] {
  const sums: number[][] = [];
  series.forEach((s, i) => sums.push(s.values.map((v, j) => (v ?? 0) + (i > 0 ? (sums[i - 1]![j] as number) : 0))));
  return sums;
}

type Bucket = Record<string, unknown>;
type Pair = { readonly current?: Bucket; readonly previous?: Bucket };

const isPair = (v: unknown): v is Pair =>
  v !== null &&
  typeof v === 'object' &&
  !Array.isArray(v) &&
  Object.keys(v).every((k) => k === 'current' || k === 'previous') &&
  Object.keys(v).length > 0;
const isComparison = (body: unknown): boolean =>
  Array.isArray(body)
    ? body.length > 0 && body.every(isPair)
    : isPair(body) && 'current' in (body as object) && 'previous' in (body as object);

/**
 * A comparison (`compare`): the current period's series, then the earlier period's named `previous
 * <name>` (as the service's CSV names them), on the current period's bucket times. A bucket of the
 * earlier period without a partner (a DST hour, a month's 31st) has no place on that axis and is left
 * out of the drawing; the CSV download has it.
 */
function readComparison(body: unknown, absent: 'zero' | 'gap'): Answer {
  if (!Array.isArray(body)) {
    const { current = {}, previous = {} } = body as Pair;
    const entries = (o: Bucket, prefix: string) =>
      Object.entries(o)
        .filter((e): e is [string, number] => typeof e[1] === 'number')
        .map(([k, v]) => [`${prefix}${k}`, v] as const);
    return { kind: 'namedNumbers', entries: [...entries(current, ''), ...entries(previous, 'previous ')] };
  }
  const pairs = (body as Pair[]).filter((p) => p.current);
  const now = readAnswer(
    pairs.map((p) => p.current as Bucket),
    absent,
  ) as TimeSeriesAnswer;
  const before = readAnswer(
    pairs.map((p) => ({
      timestamp: p.current?.timestamp,
      ...Object.fromEntries(Object.entries(p.previous ?? {}).filter(([k]) => k !== 'timestamp')),
    })),
    absent,
  ) as TimeSeriesAnswer;
  const names = seriesOrder([now.series.map((s) => s.name), before.series.map((s) => s.name)]);
  const fill = absent === 'zero' ? 0 : null;
  const pick = (a: TimeSeriesAnswer, name: string) =>
    a.series.find((s) => s.name === name)?.values ?? a.times.map(() => fill);
  return {
    kind: 'timeSeries',
    times: now.times,
    series: [
      ...names.map((name) => ({ name, values: pick(now, name) })),
      ...names.map((name, k) => ({
        name: `previous ${name}`,
        values: pairs.map((p, i) => (p.previous ? (pick(before, name)[i] ?? fill) : null)),
        earlier: true,
        pairOf: k,
      })),
    ],
  };
}
