/**
 * edge-mcp's start-up bundle without a schema library: the same three tools described with
 * plain JSON Schema (src/entries/plain-tools.ts), so the start-up figure can be split between
 * edge-mcp itself and zod.
 */
import { serve } from '@edge-mcp/adapters';
import { createMcpHandler } from '@edge-mcp/core';
import { createPlainServer } from '../entries/plain-tools.ts';
import { HOSTNAME, port } from './env.ts';

await serve(createMcpHandler(createPlainServer()), { port: port(), hostname: HOSTNAME });
