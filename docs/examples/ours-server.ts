import { McpServer, ResourceNotFoundError } from '@edge-mcp/core';
import * as z from 'zod';

const NOTES = new Map([
  ['a', 'Buy milk'],
  ['b', 'Call Ada'],
]);

/** The guide's server on edge-mcp: one definition, served on Node and in a Worker alike. */
export function createNotesServer(): McpServer {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });

  // registerTool() is tool() under the SDKs' name; raw shapes ({ a: z.number() }) work too.
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
    },
    // No content given: structuredContent is mirrored into a text block.
    ({ a, b }) => ({ structuredContent: { sum: a + b } }),
  );

  server.tool(
    'sleep',
    { description: 'Waits, then answers', inputSchema: z.object({ ms: z.number() }) },
    async ({ ms }, ctx) => {
      // ctx.signal.reason is a RequestAbortedError: type 'disconnect', 'client-cancel',
      // 'session-deleted', 'session-expired' or 'shutdown'.
      await sleep(ms, ctx.signal);
      return `slept ${ms} ms`; // a string is one text block
    },
  );

  // ctx.session: the legacy session (2025-xx clients); undefined in 2026-07-28, which is stateless.
  server.tool('count', { description: 'Counts the calls of this session' }, (_args, ctx) => {
    const state = ctx.session?.state;
    const count = ((state?.get('count') as number | undefined) ?? 0) + 1;
    state?.set('count', count);
    return String(count);
  });

  server.resourceTemplate(
    'note',
    'notes://{id}',
    {
      mimeType: 'text/plain',
      complete: { id: (prefix) => [...NOTES.keys()].filter((id) => id.startsWith(prefix)) },
    },
    (uri, { id }) => {
      const note = id === undefined ? undefined : NOTES.get(id);
      if (note === undefined) throw new ResourceNotFoundError(uri);
      return note; // a string is the text of one resource content
    },
  );

  server.prompt(
    'summarize',
    { description: 'Summarize a note', argsSchema: z.object({ id: z.string() }) },
    ({ id }) => `Summarize this note: ${NOTES.get(id) ?? '(none)'}`, // one user message
  );

  return server;
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
