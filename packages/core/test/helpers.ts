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

export { aborted } from '@edge-mcp/test-kit';
