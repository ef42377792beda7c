/** Target: a bare `Deno.serve` or `Bun.serve` handler answering the echo result (the ceiling). */
import { bareFetch } from './bare-result.ts';
import { createSideChannel } from './side-channel.ts';
import { DENO, HOST, memory, PORT, SIDE_PORT, serve } from './web-env.ts';

type Fetch = typeof bareFetch;
declare const Deno: {
  serve(options: { port: number; hostname: string; onListen(): void }, handler: Fetch): void;
};
declare const Bun: { serve(options: { port: number; hostname: string; fetch: Fetch }): void };

if (DENO) Deno.serve({ port: PORT, hostname: HOST, onListen() {} }, bareFetch);
else Bun.serve({ port: PORT, hostname: HOST, fetch: bareFetch });
await serve(createSideChannel({ memory }), {
  port: SIDE_PORT,
  hostname: HOST,
  shutdownSignals: false,
});
console.error('ready');
