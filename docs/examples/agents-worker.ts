import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpAgent } from 'agents/mcp';
import * as z from 'zod';

interface Env {
  MCP_OBJECT: DurableObjectNamespace<NotesAgent>;
}

const NOTES = new Map([
  ['a', 'Buy milk'],
  ['b', 'Call Ada'],
]);

/** One Durable Object per session: the agent owns an SDK v1 server, registered in init(). */
export class NotesAgent extends McpAgent<Env, { count: number }> {
  server = new McpServer({ name: 'notes', version: '1.0.0' });
  override initialState = { count: 0 };

  async init(): Promise<void> {
    this.server.registerTool(
      'add',
      {
        description: 'Adds two numbers',
        inputSchema: { a: z.number(), b: z.number() },
        outputSchema: { sum: z.number() },
      },
      ({ a, b }) => ({
        content: [{ type: 'text', text: String(a + b) }],
        structuredContent: { sum: a + b },
      }),
    );

    this.server.registerTool(
      'sleep',
      { description: 'Waits, then answers', inputSchema: { ms: z.number() } },
      async ({ ms }, extra) => {
        await sleep(ms, extra.signal);
        return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
      },
    );

    // The agent's state is the session's, stored in the object.
    this.server.registerTool('count', { description: 'Counts the calls of this session' }, () => {
      this.setState({ count: this.state.count + 1 });
      return { content: [{ type: 'text', text: String(this.state.count) }] };
    });

    this.server.registerResource(
      'note',
      new ResourceTemplate('notes://{id}', {
        list: undefined,
        complete: { id: (prefix) => [...NOTES.keys()].filter((id) => id.startsWith(prefix)) },
      }),
      { mimeType: 'text/plain' },
      (uri, { id }) => {
        const note = NOTES.get(String(id));
        if (note === undefined) throw new Error(`Resource not found: ${uri.href}`);
        return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: note }] };
      },
    );

    this.server.registerPrompt(
      'summarize',
      { description: 'Summarize a note', argsSchema: { id: z.string() } },
      ({ id }) => ({
        messages: [
          {
            role: 'user',
            content: { type: 'text', text: `Summarize this note: ${NOTES.get(id) ?? '(none)'}` },
          },
        ],
      }),
    );
  }
}

// Streamable HTTP on /mcp; every session is routed to its own NotesAgent object.
export default NotesAgent.serve('/mcp', { binding: 'MCP_OBJECT' });

function sleep(ms: number, signal: AbortSignal): Promise<void> {
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
