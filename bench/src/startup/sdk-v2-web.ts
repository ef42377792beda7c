/** SDK v2's start-up bundle on Deno and Bun: `createMcpHandler` served by the runtime's own server. */
import { createMcpHandler } from '@modelcontextprotocol/server';
import { buildSdkV2Server } from '../entries/sdk-v2-tools.ts';
import { HOSTNAME, port } from './env.ts';

type Fetch = (request: Request) => Promise<Response>;
declare const Deno:
  | { serve(options: { port: number; hostname: string; onListen(): void }, fetch: Fetch): void }
  | undefined;
declare const Bun: { serve(options: { port: number; hostname: string; fetch: Fetch }): void };

const handler = createMcpHandler(() => buildSdkV2Server());
const fetch: Fetch = (request) => handler.fetch(request);
if (typeof Deno !== 'undefined')
  Deno.serve({ port: port(), hostname: HOSTNAME, onListen() {} }, fetch);
else Bun.serve({ port: port(), hostname: HOSTNAME, fetch });
