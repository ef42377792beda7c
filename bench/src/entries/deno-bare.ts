/** Target: a bare `Deno.serve` handler answering the echo result (the Deno ceiling). */
import { serve } from '@edge-mcp/adapters/deno';
import { bareFetch } from './bare-result.ts';
import { createSideChannel, type Memory } from './side-channel.ts';

declare const Deno: {
  env: { get(name: string): string | undefined };
  memoryUsage(): Memory;
  serve(
    options: { port: number; hostname: string; onListen(): void },
    handler: typeof bareFetch,
  ): void;
};

const hostname = '127.0.0.1';
Deno.serve({ port: Number(Deno.env.get('PORT')), hostname, onListen() {} }, bareFetch);
const side = createSideChannel({ memory: () => Deno.memoryUsage() });
await serve(side, { port: Number(Deno.env.get('SIDE_PORT')), hostname, shutdownSignals: false });
console.error('ready');
