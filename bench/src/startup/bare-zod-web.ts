/** The floor of a zod server on Deno and Bun: the runtime's server answering the echo after zod. */
import { bareZodFetch } from '../entries/bare-zod.ts';
import { HOSTNAME, port } from './env.ts';

type Fetch = typeof bareZodFetch;
declare const Deno:
  | { serve(options: { port: number; hostname: string; onListen(): void }, fetch: Fetch): void }
  | undefined;
declare const Bun: { serve(options: { port: number; hostname: string; fetch: Fetch }): void };

if (typeof Deno !== 'undefined')
  Deno.serve({ port: port(), hostname: HOSTNAME, onListen() {} }, bareZodFetch);
else Bun.serve({ port: port(), hostname: HOSTNAME, fetch: bareZodFetch });
