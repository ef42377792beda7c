import type { HandlerCore } from '../http/handler.ts';
import { accepted, errorResponse, JSON_HEADERS } from '../http/responses.ts';
import { ErrorCode } from '../protocol/constants.ts';
import { classify, errorMessage } from '../protocol/jsonrpc.ts';
import { encodeEvent } from '../sse/encoder.ts';
import { SSE_HEADERS } from '../sse/stream.ts';
import { handleLegacy, sessionOf } from './dispatch.ts';

/**
 * A JSON-RPC batch, legal only in 2025-03-26. Each element is served like a single message; the
 * answers are combined: one JSON array when every answer is JSON, otherwise one SSE stream that
 * carries every element's events as they come.
 */
export async function handleBatch(
  core: HandlerCore,
  request: Request,
  values: unknown[],
): Promise<Response> {
  const session = sessionOf(core, request);
  if (session instanceof Response) return session;
  const version =
    session?.protocolVersion ?? request.headers.get('mcp-protocol-version')?.trim() ?? '2025-03-26';
  if (version !== '2025-03-26')
    return errorResponse(
      400,
      ErrorCode.InvalidRequest,
      'Batches are only allowed in protocol revision 2025-03-26',
    );
  if (values.length === 0) return errorResponse(400, ErrorCode.InvalidRequest, 'Empty batch');
  const answers: Array<Promise<Response> | Response | string> = [];
  for (const value of values) {
    const message = classify(value);
    if (!message)
      answers.push(
        errorMessage(undefined, {
          code: ErrorCode.InvalidRequest,
          message: 'Invalid JSON-RPC message in batch',
        }),
      );
    else if (message.kind === 'request' && message.message.method === 'initialize') {
      answers.push(
        errorMessage(message.message.id, {
          code: ErrorCode.InvalidRequest,
          message: 'initialize must not be batched',
        }),
      );
    } else {
      const answer = handleLegacy(core, request, message);
      if (message.kind === 'request') answers.push(answer);
    }
  }
  if (answers.length === 0) return accepted();
  const responses = await Promise.all(answers);
  if (
    responses.every(
      (r) =>
        typeof r === 'string' || !r.headers.get('content-type')?.startsWith('text/event-stream'),
    )
  ) {
    const bodies = await Promise.all(responses.map((r) => (typeof r === 'string' ? r : r.text())));
    return new Response(`[${bodies.filter((b) => b !== '').join(',')}]`, { headers: JSON_HEADERS });
  }
  return new Response(merge(responses), { headers: SSE_HEADERS });
}

/** Interleaves several answers into one SSE body; cancelling it cancels every part. */
function merge(parts: Array<Response | string>): ReadableStream<Uint8Array> {
  // JSON answers become one event each; SSE answers are passed through frame by frame.
  const readers = parts.map((part) =>
    typeof part === 'string' ||
    part.headers.get('content-type')?.startsWith('text/event-stream') !== true
      ? typeof part === 'string'
        ? part
        : part.text()
      : part.body?.getReader(),
  );
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      await Promise.all(
        readers.map(async (part) => {
          if (part === undefined) return;
          if (typeof part === 'string' || part instanceof Promise) {
            const text = await part;
            if (text !== '') controller.enqueue(encodeEvent(text));
            return;
          }
          for (;;) {
            const { done, value } = await part.read();
            if (done) return;
            controller.enqueue(value);
          }
        }),
      ).catch(() => {});
      try {
        controller.close();
      } catch {}
    },
    cancel(reason) {
      for (const part of readers) {
        if (part && typeof part !== 'string' && !(part instanceof Promise))
          part.cancel(reason).catch(() => {});
      }
    },
  });
}
