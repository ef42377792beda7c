/** The part of autocannon 9's programmatic API the bench uses (it ships no types). */
declare module 'autocannon' {
  interface RequestParams {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  interface Request extends RequestParams {
    setupRequest?: (request: RequestParams, context: object) => RequestParams;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    requests?: Request[];
  }
  interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: { p50: number; p99: number };
  }
  /** The run: a thenable EventEmitter. */
  interface Instance extends PromiseLike<Result> {
    on(
      event: 'response',
      listener: (client: unknown, statusCode: number, bytes: number, responseTime: number) => void,
    ): Instance;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
