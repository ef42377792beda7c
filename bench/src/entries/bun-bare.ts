/** Target: a bare `Bun.serve` handler answering the echo result (the Bun ceiling). */
import { serve } from '@edge-mcp/adapters/bun';
import { bareFetch } from './bare-result.ts';
import { createSideChannel } from './side-channel.ts';

declare const Bun: {
  serve(options: { port: number; hostname: string; fetch: typeof bareFetch }): void;
};

const hostname = '127.0.0.1';
Bun.serve({ port: Number(process.env.PORT), hostname, fetch: bareFetch });
const side = createSideChannel({ memory: () => process.memoryUsage() });
await serve(side, { port: Number(process.env.SIDE_PORT), hostname, shutdownSignals: false });
console.error('ready');
