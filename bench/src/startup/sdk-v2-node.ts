/** SDK v2's start-up bundle on Node: `createMcpHandler` on `@hono/node-server`, as in the load test. */
import { serve } from '@hono/node-server';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { buildSdkV2Server } from '../entries/sdk-v2-tools.ts';
import { HOSTNAME, port } from './env.ts';

const handler = createMcpHandler(() => buildSdkV2Server());
serve({ fetch: (request: Request) => handler.fetch(request), port: port(), hostname: HOSTNAME });
