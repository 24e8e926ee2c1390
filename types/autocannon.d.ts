/** The part of autocannon's API the throughput benchmark uses (the package ships no types). */
declare module 'autocannon' {
  export interface Histogram {
    readonly average: number;
    readonly p50: number;
    readonly p99: number;
    readonly total: number;
  }
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  export interface Result {
    readonly requests: Histogram;
    readonly latency: Histogram;
    readonly duration: number;
    readonly errors: number;
    readonly timeouts: number;
    readonly non2xx: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
