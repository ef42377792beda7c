/** SDK v2's start-up bundle on Deno and Bun: `createMcpHandler` served by the runtime's own server. */
import { createMcpHandler } from '@modelcontextprotocol/server';
import { buildSdkV2Server } from '../entries/sdk-v2-tools.ts';
import { serveWeb } from './env.ts';

const handler = createMcpHandler(() => buildSdkV2Server());
serveWeb((request) => handler.fetch(request));
