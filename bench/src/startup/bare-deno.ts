/** Start-up ceiling on Deno: a bare `Deno.serve` handler answering the echo result. */
import { bareFetch } from '../entries/bare-result.ts';
import { HOSTNAME, port } from './env.ts';

declare const Deno: {
  serve(
    options: { port: number; hostname: string; onListen(): void },
    handler: typeof bareFetch,
  ): void;
};

Deno.serve({ port: port(), hostname: HOSTNAME, onListen() {} }, bareFetch);
