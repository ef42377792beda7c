import { BodyTooLargeError, readBody } from '@edge-mcp/core';
import type { FetchHandler } from '../shared/types.ts';
import { objectIdOf } from './session-id.ts';
import type { WorkerEntry } from './worker.ts';
import type { DurableObjectNamespace } from './workers-types.ts';

export interface SessionWorkerOptions<Env> {
  /** The Durable Object namespace bound to the class from `defineSessionObject`. */
  sessions(env: Env): DurableObjectNamespace;
  /**
   * The handler for everything that is not a legacy session request (2026-07-28 requests above
   * all), built once per isolate. Give it legacy on with a session manager (the default), so a
   * legacy request without a session id gets its 400.
   */
  build(env: Env): FetchHandler;
  /** Largest body read while routing a legacy POST. @default 4 MiB */
  maxBodyBytes?: number;
  /** The MCP endpoint's path; other paths go to `build`'s handler untouched. @default '/mcp' */
  path?: string;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const NOT_FOUND = '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"}}';

/**
 * A Worker that serves 2026-07-28 requests statelessly in the isolate and sends every legacy
 * session request to the Durable Object named by its session id; an `initialize` creates a new
 * object. The request goes to the object as it came (its body and signal), and the object's
 * response streams back as it comes, so a client that leaves cancels the handler in the object.
 */
export function createSessionWorker<Env>(options: SessionWorkerOptions<Env>): WorkerEntry<Env> {
  let handler: FetchHandler | undefined;
  const limit = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const path = options.path ?? '/mcp';
  return {
    async fetch(request, env) {
      handler ??= options.build(env);
      if (pathOf(request.url) !== path) return handler.fetch(request);
      const modern = request.headers.get('mcp-protocol-version')?.trim() === '2026-07-28';
      const sessionId = request.headers.get('mcp-session-id');
      if (!modern && sessionId !== null) {
        const namespace = options.sessions(env);
        const objectId = objectIdOf(namespace, sessionId);
        if (objectId === undefined)
          return new Response(NOT_FOUND, { status: 404, headers: JSON_HEADERS });
        return namespace.get(objectId).fetch(request);
      }
      if (modern || request.method !== 'POST') return handler.fetch(request);
      // A legacy POST without a session: an initialize opens a session in a new object.
      let text: string;
      try {
        text = await readBody(request, limit);
      } catch (error) {
        if (!(error instanceof BodyTooLargeError)) throw error;
        const body = JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32600, message: error.message },
        });
        return new Response(body, { status: 413, headers: JSON_HEADERS });
      }
      const forwarded = new Request(request, { body: text });
      if (!isInitialize(text)) return handler.fetch(forwarded);
      const namespace = options.sessions(env);
      return namespace.get(namespace.newUniqueId()).fetch(forwarded);
    },
  };
}

function isInitialize(text: string): boolean {
  try {
    const message = JSON.parse(text) as {
      method?: unknown;
      params?: { _meta?: Record<string, unknown> };
    };
    // An initialize carrying modern _meta is a modern request (answered 404 by the handler).
    return (
      message?.method === 'initialize' &&
      !message.params?._meta?.['io.modelcontextprotocol/protocolVersion']
    );
  } catch {
    return false;
  }
}

function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const end = url.slice(start).search(/[?#]/);
  return end < 0 ? url.slice(start) : url.slice(start, start + end);
}
