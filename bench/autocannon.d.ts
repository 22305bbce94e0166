// The subset of autocannon 9's API that bench/run.ts and bench/engine.ts use (the package ships no types).
declare module 'autocannon' {
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    headers?: Record<string, string>;
    method?: string;
    body?: string;
    timeout?: number;
  }
  export interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
    total: number;
  }
  export interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets?: number;
    statusCodeStats?: Record<string, { count: number }>;
    '2xx': number;
    duration: number;
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
