/**
 * What the Deno and Bun entries share: the runtime's own adapter (`@edge-mcp/adapters/deno` or
 * `/bun`, the one a user of that runtime imports), the ports, and the memory usage, read the
 * runtime's way (Deno has no `process` of its own).
 */
import type { Memory } from './side-channel.ts';

declare const Deno:
  | { env: { get(name: string): string | undefined }; memoryUsage(): Memory }
  | undefined;

/** What the Deno and Bun adapters' `serve` both take. */
type Serve = (
  handler: { fetch(request: Request): Response | Promise<Response> },
  options: { port: number; hostname: string; shutdownSignals?: false; signal?: AbortSignal },
) => Promise<unknown>;

export const DENO = typeof Deno !== 'undefined';
const env = (name: string) => (DENO ? Deno!.env.get(name) : process.env[name]);
export const { serve } = (
  DENO ? await import('@edge-mcp/adapters/deno') : await import('@edge-mcp/adapters/bun')
) as { serve: Serve };
export const memory = (): Memory => (DENO ? Deno!.memoryUsage() : process.memoryUsage());
export const PORT = Number(env('PORT'));
export const SIDE_PORT = Number(env('SIDE_PORT'));
export const HOST = '127.0.0.1';
