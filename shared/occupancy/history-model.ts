/**
 * The answer of `GET /locations/{id}/insights/history`: plain types with no runtime, so that the
 * page (web/, compiled without Node's types) can read them without compiling the history's
 * computation (./history.ts), which paces its work with Node's timers.
 */

export interface HistoryBucket {
  /** Bucket start, ISO 8601 UTC with milliseconds (as report histograms). */
  readonly timestamp: string;
  /** Absent when the group was closed for the whole bucket. */
  readonly occupancy?: number;
  readonly peak?: number;
  /** The capacity in force at the bucket's last sample, when the group had one then. */
  readonly capacity?: number;
  /** occupancy ÷ capacity, rounded half up to 3 decimals, with `capacity`. */
  readonly utilization?: number;
  /**
   * The largest utilization at the bucket's samples (each with the capacity in force at it), when any had a capacity.
   */
  readonly peakUtilization?: number;
}

export interface GroupHistory {
  readonly sensorGroup: { readonly id: number; readonly name: string };
  readonly buckets: readonly HistoryBucket[];
}

export interface OccupancyHistory {
  readonly timeZone: string;
  readonly interval: string;
  /** First bucket start and last bucket end: the buckets of the time zone that overlap the asked range. */
  readonly from: string;
  readonly to: string;
  readonly insights: { readonly occupancy?: readonly GroupHistory[] };
}
