import { McpServer, type RequestContext, ResourceNotFoundError } from '@edge-mcp/core';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import * as z from 'zod';

const NOTES: Record<string, { title: string; body: string }> = {
  welcome: { title: 'Welcome', body: 'edge-mcp serves MCP on every JavaScript runtime.' },
  lifecycle: {
    title: 'Lifecycle',
    body: 'Disconnect cancels. Shutdown ends everything. A dropped stream is not a dead session.',
  },
  runtimes: { title: 'Runtimes', body: 'Node, Deno, Bun and Cloudflare Workers.' },
};

const CITIES: Record<string, number> = {
  amsterdam: 11,
  lisbon: 19,
  oslo: 4,
  tokyo: 17,
  nairobi: 21,
};

/** Waits `ms`, rejecting with the signal's reason as soon as it aborts. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
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

/** Builds the example server. Build it once per process (or isolate) and share it. */
export function createExampleServer(): McpServer {
  const server = new McpServer({
    name: 'edge-mcp-example',
    version: '0.1.0',
    title: 'edge-mcp example',
    instructions:
      'Tools to echo, add, count words, look up weather and sleep (cancellable); notes as resources.',
  });

  // --- zod tools -------------------------------------------------------------------------------
  server.tool(
    'echo',
    {
      description: 'Echoes the text back.',
      inputSchema: z.object({ text: z.string().describe('Text to echo') }),
    },
    ({ text }) => text,
  );

  server.tool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
      annotations: { readOnlyHint: true },
    },
    ({ a, b }) => ({ structuredContent: { sum: a + b } }),
  );

  server.tool(
    'sleep',
    {
      description:
        'Sleeps for ms milliseconds, reporting progress each second; stops at once when cancelled. Runs as a task when the client asks for one.',
      inputSchema: z.object({
        ms: z.number().int().min(0).max(600_000).describe('How long to sleep'),
      }),
      taskSupport: 'optional',
    },
    async ({ ms }, ctx: RequestContext) => {
      const step = 1000;
      for (let elapsed = 0; elapsed < ms; elapsed += step) {
        ctx.progress(elapsed, ms, `slept ${elapsed} ms`);
        await wait(Math.min(step, ms - elapsed), ctx.signal);
      }
      return `slept ${ms} ms`;
    },
  );

  server.tool(
    'long_job',
    {
      description:
        'A long piece of work (ms milliseconds, progress each second) that may safely run again from the start: run it as a task; cancellable.',
      inputSchema: z.object({
        ms: z.number().int().min(0).max(3_600_000).describe('How long the work takes'),
      }),
      // Running it twice does no harm: a store that can re-run tasks may run it again after its
      // runner was lost, rather than answer it failed.
      annotations: { idempotentHint: true },
      taskSupport: 'optional',
    },
    async ({ ms }, ctx: RequestContext) => {
      const step = 1000;
      for (let done = 0; done < ms; done += step) {
        ctx.progress(done, ms, `${done} of ${ms} ms done`);
        await wait(Math.min(step, ms - done), ctx.signal);
      }
      return `long job done: ${ms} ms of work`;
    },
  );

  server.tool(
    'ask_job',
    {
      description:
        'A job that asks the client how to finish (elicitation) before it does: run as a task, it waits in input_required for the answer.',
      inputSchema: z.object({ job: z.string().default('report').describe('What to finish') }),
      taskSupport: 'optional',
    },
    async ({ job }, ctx) => {
      const answer = await ctx.elicit(
        {
          message: `How should the ${job} end?`,
          requestedSchema: {
            type: 'object',
            properties: { ending: { type: 'string', title: 'Ending' } },
            required: ['ending'],
          },
        },
        'ending',
      );
      if (answer.action !== 'accept')
        return {
          content: [{ type: 'text', text: `The ${job} was left unfinished.` }],
          isError: true,
        };
      return `${job} finished: ${(answer.content as { ending: string }).ending}`;
    },
  );

  server.tool(
    'greet',
    {
      description: 'Asks the user for their name (elicitation), then greets them.',
      inputSchema: z.object({ greeting: z.string().default('Hello') }),
    },
    async ({ greeting }, ctx) => {
      const answer = await ctx.elicit(
        {
          message: 'What is your name?',
          requestedSchema: {
            type: 'object',
            properties: { name: { type: 'string', title: 'Name' } },
            required: ['name'],
          },
        },
        'name',
      );
      if (answer.action !== 'accept')
        return { content: [{ type: 'text', text: 'No name given.' }], isError: true };
      return `${greeting}, ${(answer.content as { name: string }).name}!`;
    },
  );

  server.tool(
    'tally',
    {
      description:
        'Adds to a running sum kept in the session (legacy sessions; 2026-07-28 requests are stateless).',
      inputSchema: z.object({ add: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
    },
    ({ add }, ctx) => {
      const state = ctx.session?.state;
      if (!state) {
        return {
          content: [{ type: 'text', text: 'tally needs a session: connect with a 2025 revision' }],
          isError: true,
        };
      }
      const sum = ((state.get('sum') as number | undefined) ?? 0) + add;
      state.set('sum', sum);
      return { structuredContent: { sum } };
    },
  );

  server.tool(
    'whoami',
    {
      description:
        'What the server knows of this client: revision, client info, capabilities, session, and of its request: the client address and the host and URL it addressed (behind a trusted proxy, what the proxy forwarded).',
    },
    (_args, ctx) =>
      JSON.stringify({
        protocolVersion: ctx.protocolVersion,
        clientInfo: ctx.clientInfo ?? null,
        clientCapabilities: ctx.clientCapabilities,
        session: ctx.session?.id ?? null,
        clientAddress: ctx.request.clientAddress ?? null,
        host: new URL(ctx.request.url).host,
        url: ctx.request.url,
      }),
  );

  // Seen only by callers whose token grants `mcp:admin`: to anyone else it does not exist (not in
  // tools/list; a call is one of an unknown tool, not a 403 that tells it is there).
  server.tool(
    'admin_scopes',
    {
      description:
        'The principal and scopes the server was given for this caller (mcp:admin only).',
      visibleTo: ['mcp:admin'],
    },
    (_args, ctx) =>
      JSON.stringify({ principal: ctx.auth?.principal, scopes: ctx.auth?.scopes ?? [] }),
  );

  // --- valibot tools ---------------------------------------------------------------------------
  server.tool(
    'word_count',
    {
      description: 'Counts words and characters.',
      inputSchema: toStandardJsonSchema(
        v.object({ text: v.pipe(v.string(), v.description('Text to count')) }),
      ),
      outputSchema: toStandardJsonSchema(v.object({ words: v.number(), characters: v.number() })),
    },
    ({ text }) => {
      const words = text.trim() === '' ? 0 : text.trim().split(/\s+/).length;
      return { structuredContent: { words, characters: text.length } };
    },
  );

  server.tool(
    'weather',
    {
      description: 'Made-up current temperature for a city.',
      inputSchema: toStandardJsonSchema(
        v.object({
          city: v.pipe(v.string(), v.minLength(1), v.description('City name')),
          unit: v.optional(v.picklist(['celsius', 'fahrenheit']), 'celsius'),
        }),
      ),
    },
    ({ city, unit }) => {
      const celsius = CITIES[city.toLowerCase()];
      if (celsius === undefined)
        return { content: [{ type: 'text', text: `No weather for ${city}.` }], isError: true };
      const value = unit === 'fahrenheit' ? Math.round((celsius * 9) / 5 + 32) : celsius;
      return `${city}: ${value}°${unit === 'fahrenheit' ? 'F' : 'C'}`;
    },
  );

  // --- resources -------------------------------------------------------------------------------
  server.resource(
    'about',
    'example://about',
    { description: 'About this server', mimeType: 'text/plain' },
    () => 'The edge-mcp example server.',
  );

  server.resourceTemplate(
    'note',
    'notes://{id}',
    {
      description: 'A note by id',
      mimeType: 'application/json',
      complete: { id: (value) => Object.keys(NOTES).filter((id) => id.startsWith(value)) },
    },
    (uri, { id }) => {
      const note = id === undefined ? undefined : NOTES[id];
      if (!note) throw new ResourceNotFoundError(uri);
      return JSON.stringify({ id, ...note });
    },
  );

  // --- prompts ---------------------------------------------------------------------------------
  server.prompt(
    'summarize',
    {
      description: 'Summarize a note in a given style.',
      argsSchema: z.object({
        note: z.string().describe('Note id'),
        style: z.string().optional().describe('brief, detailed or bullet'),
      }),
      complete: {
        note: (value) => Object.keys(NOTES).filter((id) => id.startsWith(value)),
        style: (value) => ['brief', 'detailed', 'bullet'].filter((s) => s.startsWith(value)),
      },
    },
    ({ note, style }) => {
      const found = NOTES[note];
      const body = found ? found.body : `(no note called ${note})`;
      return `Summarize this note${style ? ` in a ${style} style` : ''}:\n\n${body}`;
    },
  );

  // --- skills ----------------------------------------------------------------------------------
  // One Agent Skill through the skills extension: skills/list, skills/get, and its files under
  // skill://notes-writer/ (bundled strings, so the same skill serves on workerd).
  server.skill(NOTES_SKILL);

  return server;
}

/** The example's skill: how to write a note this server's `notes://` resources would hold. */
const NOTES_SKILL = {
  'SKILL.md': `---
name: notes-writer
description: Write a short note in the style of the example server's notes
---

# Writing a note

Start with a one-line title, then at most three short paragraphs. Use the template in
[templates/note.md](templates/note.md), and read \`notes://welcome\` for an example.
`,
  'templates/note.md': '# <title>\n\n<what happened>\n\n<what to do next>\n',
};
