/**
 * Core-only test helpers: a request through a handler in-process, a signal's abort. Requests of
 * both eras, the SSE reader and answer reading come from @edge-mcp/test-kit.
 */
import { type ModernOptions, modernRequest, type RpcAnswer, readAnswer } from '@edge-mcp/test-kit';
import type { McpHandler } from '../src/index.ts';

/** A 2026-07-28 request through `handler`, its answer read to the end. */
export async function call(
  handler: McpHandler,
  method: string,
  params?: Record<string, unknown>,
  options?: ModernOptions,
): Promise<RpcAnswer> {
  return readAnswer(await handler.fetch(modernRequest(method, params, options)));
}

/** Where `nestedIn` puts its value: a params field set to this string. */
export const NESTED = '@@nested@@';

/**
 * `request` with its `NESTED` placeholder replaced by an array nested `depth` deep, written as
 * text: `JSON.stringify` of such a value overflows the stack before it reaches the handler.
 */
export async function nestedIn(request: Request, depth: number): Promise<Request> {
  const body = (await request.text()).replace(
    JSON.stringify(NESTED),
    `${'['.repeat(depth)}${']'.repeat(depth)}`,
  );
  return new Request(request.url, { method: request.method, headers: request.headers, body });
}

export { aborted } from '@edge-mcp/test-kit';
