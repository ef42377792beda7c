/** The port a start-up bundle listens on, on any runtime, and the Deno and Bun way to serve. */
type Fetch = (request: Request) => Promise<Response>;
declare const Deno:
  | {
      env: { get(name: string): string | undefined };
      serve(options: { port: number; hostname: string; onListen(): void }, fetch: Fetch): void;
    }
  | undefined;
declare const Bun: { serve(options: { port: number; hostname: string; fetch: Fetch }): void };

// Deno has no `process` of its own.
export function port(): number {
  const value = typeof Deno === 'undefined' ? process.env.PORT : Deno.env.get('PORT');
  return Number(value);
}

export const HOSTNAME = '127.0.0.1';

/** `fetch` served by the runtime's own server: `Deno.serve` or `Bun.serve`. */
export function serveWeb(fetch: Fetch): void {
  if (typeof Deno !== 'undefined')
    Deno.serve({ port: port(), hostname: HOSTNAME, onListen() {} }, fetch);
  else Bun.serve({ port: port(), hostname: HOSTNAME, fetch });
}
