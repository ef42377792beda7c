/** Start-up ceiling on Bun: a bare `Bun.serve` handler answering the echo result. */
import { bareFetch } from '../entries/bare-result.ts';
import { HOSTNAME, port } from './env.ts';

declare const Bun: {
  serve(options: { port: number; hostname: string; fetch: typeof bareFetch }): void;
};

Bun.serve({ port: port(), hostname: HOSTNAME, fetch: bareFetch });
