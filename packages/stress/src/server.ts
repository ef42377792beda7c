/**
 * The server the fuzz and the soak talk to: a few tools that exercise every way a handler can
 * answer (a plain result, a stream of progress and logs, a question to the client, a slow call
 * that honours its signal, an error, header-mirrored arguments), a resource, a resource template
 * and a prompt, both with completion.
 */
import { McpServer, type RequestContext, ResourceNotFoundError } from '@edge-mcp/core';
import * as z from 'zod';

/** Ids the `notes://{id}` template knows. */
export const NOTE_IDS = ['alpha', 'beta', 'gamma', 'ünï', 'line\u2028sep'] as const;
/** Values the prompt completes its `language` argument with. */
export const LANGUAGES = ['typescript', 'rust', 'go', 'python', 'zig'] as const;
export const README_URI = 'docs://readme';

/** The server's tool names, with the arguments each one accepts (what a well-formed call sends). */
export const TOOL_NAMES = ['echo', 'chatty', 'ask', 'slow', 'boom', 'region', 'shape'] as const;

/** Waits `ms`, rejecting with the signal's reason as soon as it aborts; leaves no timer or listener. */
export function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const done = () => {
      signal.removeEventListener('abort', stop);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}

export function createFuzzServer(): McpServer {
  const server = new McpServer({
    name: 'edge-mcp-stress',
    version: '0.0.0',
    instructions: 'Fuzz target.',
  });

  server.tool('echo', { inputSchema: z.object({ text: z.string() }) }, ({ text }) => text);

  // Streams: progress (when asked for with a progressToken) and logs (when a level lets them through).
  server.tool(
    'chatty',
    {
      inputSchema: z.object({
        count: z.number().int().min(0).max(50),
        text: z.string().optional(),
        pauseMs: z.number().int().min(0).max(20).optional(),
      }),
    },
    async ({ count, text, pauseMs }, ctx: RequestContext) => {
      for (let i = 0; i < count; i++) {
        ctx.progress(i + 1, count, text);
        ctx.log(i % 2 === 0 ? 'info' : 'warning', { i, text }, 'chatty');
        if (pauseMs) await wait(pauseMs, ctx.signal);
      }
      return `said ${count} things`;
    },
  );

  // Legacy: a real elicitation/create on the request's stream; 2026-07-28: an input-required result.
  server.tool(
    'ask',
    { inputSchema: z.object({ question: z.string().max(200).optional() }) },
    async ({ question }, ctx) => {
      const answer = await ctx.elicit(
        {
          message: question ?? 'Your name?',
          requestedSchema: {
            type: 'object',
            properties: { name: { type: 'string' } },
            required: ['name'],
          },
        },
        'name',
      );
      if (answer.action !== 'accept')
        return { content: [{ type: 'text', text: `no answer (${answer.action})` }], isError: true };
      return `hello ${JSON.stringify(answer.content)}`;
    },
  );

  server.tool(
    'slow',
    { inputSchema: z.object({ ms: z.number().int().min(0).max(300) }) },
    async ({ ms }, ctx) => {
      ctx.progress(0, ms);
      await wait(ms, ctx.signal);
      return `slept ${ms} ms`;
    },
  );

  server.tool('boom', {}, () => {
    throw new Error('kaboom');
  });

  // Plain JSON Schema with x-mcp-header arguments: the Mcp-Param-* headers are required.
  server.tool(
    'region',
    {
      inputSchema: {
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          n: { type: 'integer', 'x-mcp-header': 'N' },
          flag: { type: 'boolean', 'x-mcp-header': 'Flag' },
        },
      },
    },
    (args) => JSON.stringify(args),
  );

  // Structured output validated against a schema (a mismatch is -32603).
  server.tool(
    'shape',
    {
      inputSchema: z.object({ value: z.unknown() }),
      outputSchema: z.object({ n: z.number() }),
    },
    ({ value }) => ({ structuredContent: value as { n: number } }),
  );

  server.resource('readme', README_URI, { mimeType: 'text/markdown' }, () => '# stress\n');

  server.resourceTemplate(
    'note',
    'notes://{id}',
    {
      mimeType: 'text/plain',
      complete: { id: (prefix) => NOTE_IDS.filter((id) => id.startsWith(prefix)) },
    },
    (uri, { id }) => {
      if (!(NOTE_IDS as readonly string[]).includes(String(id)))
        throw new ResourceNotFoundError(uri);
      return `note ${id}`;
    },
  );

  server.prompt(
    'review',
    {
      description: 'Review code in a language',
      argsSchema: z.object({ language: z.string(), focus: z.string().optional() }),
      complete: {
        language: (value) => LANGUAGES.filter((language) => language.startsWith(value)),
        focus: (value, { arguments: args }) => [`${args?.language ?? 'any'}:${value}`],
      },
    },
    ({ language, focus }) => `Review this ${language} code${focus ? ` for ${focus}` : ''}.`,
  );

  return server;
}
