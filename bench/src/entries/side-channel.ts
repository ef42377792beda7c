/**
 * The test-only side channel every target serves on a second port (never on the measured one):
 *
 * - `GET /health` → `ok`
 * - `GET /memory?gc=1` → runs the GC (when exposed) a few times, then the runtime's memory usage
 * - `GET /stats` → the handler's own stats, when it has any
 * - `GET /events` → a stream of lines, one request id per `sleep` handler that saw its abort
 * - `GET /profile/start`, `GET /profile/stop?file=…&top=…` → CPU profile (Node targets only)
 * - `GET /lag/start`, `GET /lag/stop` → the event-loop lag of the idle sweep's turns
 *   (expiry-lag.ts; targets that count `reaped`)
 *
 * Web APIs only; each entry serves it with its runtime's server.
 */
import type { ExpiryLagSampler } from './expiry-lag.ts';

export interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

export interface SideChannelOptions {
  memory(): Memory;
  gc?: (() => void) | undefined;
  stats?: () => unknown;
  profiler?: {
    start(): Promise<void>;
    stop(file?: string, top?: number): Promise<unknown>;
  };
  lag?: ExpiryLagSampler | undefined;
}

export interface SideChannel {
  /** Reports that the handler of `requestId` aborted. */
  abort(requestId: string): void;
  fetch(request: Request): Response | Promise<Response>;
  /** Ends the event streams, so the server can stop. */
  close(): Promise<void>;
}

const encoder = new TextEncoder();
const json = (value: unknown) =>
  new Response(JSON.stringify(value), { headers: { 'content-type': 'application/json' } });

export function createSideChannel(options: SideChannelOptions): SideChannel {
  const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  return {
    abort(requestId) {
      const line = encoder.encode(`${requestId}\n`);
      for (const controller of streams) controller.enqueue(line);
    },
    async fetch(request) {
      const url = new URL(request.url);
      switch (url.pathname) {
        case '/health':
          return new Response('ok');
        case '/memory':
          if (url.searchParams.has('gc') && options.gc) {
            for (let i = 0; i < 4; i++) {
              options.gc();
              await new Promise((resolve) => setTimeout(resolve, 10));
            }
          }
          return json(options.memory());
        case '/stats':
          return json(options.stats?.() ?? null);
        case '/profile/start':
          await options.profiler?.start();
          return json(Boolean(options.profiler));
        case '/profile/stop':
          return json(
            (await options.profiler?.stop(
              url.searchParams.get('file') ?? undefined,
              Number(url.searchParams.get('top') ?? 30),
            )) ?? null,
          );
        case '/lag/start':
          options.lag?.start();
          return json(Boolean(options.lag));
        case '/lag/stop':
          return json(options.lag?.stop() ?? null);
        case '/events': {
          let own: ReadableStreamDefaultController<Uint8Array> | undefined;
          const body = new ReadableStream<Uint8Array>({
            start(controller) {
              own = controller;
              streams.add(controller);
              controller.enqueue(encoder.encode('ready\n'));
            },
            cancel() {
              if (own) streams.delete(own);
            },
          });
          return new Response(body, { headers: { 'content-type': 'text/plain' } });
        }
        default:
          return new Response('not found', { status: 404 });
      }
    },
    async close() {
      for (const controller of streams) controller.close();
      streams.clear();
    },
  };
}
