import type { AuthInfo } from '../auth/auth-info.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import {
  type Answer,
  accepted,
  emptyReply,
  jsonResponse,
  Reply,
  refuse,
} from '../http/responses.ts';
import type { RequestLoad } from '../lifecycle/in-flight-load.ts';
import { DEFAULT_LEGACY_VERSION, ErrorCode, REVISION_RULES } from '../protocol/constants.ts';
import { classify, errorMessage } from '../protocol/jsonrpc.ts';
import { encodeEvent } from '../sse/encoder.ts';
import { SSE_HEADERS } from '../sse/stream.ts';
import { handleLegacy, type LegacyOutcome } from './dispatch.ts';
import type { LegacyEndpoint } from './endpoint.ts';
import { claimedVersion, type SessionLookup, sessionOf } from './session-of.ts';

/** What a batch's elements became: an error already written, or each message's outcome. */
export type BatchParts = Array<string | LegacyOutcome | Promise<LegacyOutcome>>;

/**
 * A JSON-RPC batch, legal only in 2025-03-26: refused as a whole, answered 202 (notifications and
 * responses only), or its elements each served like a single message. Routing runs the requests
 * among them and combines the answers (`combineBatch`).
 */
export async function prepareBatch(
  endpoint: LegacyEndpoint,
  request: IncomingRequest,
  values: unknown[],
  auth: AuthInfo | undefined,
  /** The batch's body bytes, held until every element's exchange ended. */
  held?: RequestLoad,
): Promise<Reply | BatchParts> {
  const session: SessionLookup = await sessionOf(endpoint, request, auth);
  if (session instanceof Reply) return session;
  const version = claimedVersion(session, request, DEFAULT_LEGACY_VERSION);
  if (!REVISION_RULES.batches(version))
    return refuse(
      'batch',
      400,
      ErrorCode.InvalidRequest,
      'Batches are only allowed in protocol revision 2025-03-26',
    );
  if (values.length === 0) return refuse('batch', 400, ErrorCode.InvalidRequest, 'Empty batch');
  const max = endpoint.limits.maxBatchSize;
  if (values.length > max) {
    endpoint.streams.counters.rejected++;
    return refuse(
      'batch',
      400,
      ErrorCode.InvalidRequest,
      `A batch may hold ${max} messages at most (this one has ${values.length})`,
    );
  }
  // An adapter's watch() holds one listener; every element has its own exchange to tell.
  const shared = request.watch ? new SignalOnly(request) : request;
  const parts: BatchParts = [];
  for (const value of values) {
    const message = classify(value);
    if (!message)
      parts.push(
        errorMessage(undefined, {
          code: ErrorCode.InvalidRequest,
          message: 'Invalid JSON-RPC message in batch',
        }),
      );
    else if (message.kind === 'request' && message.message.method === 'initialize') {
      parts.push(
        errorMessage(message.message.id, {
          code: ErrorCode.InvalidRequest,
          message: 'initialize must not be batched',
        }),
      );
    } else {
      const outcome = handleLegacy(endpoint, shared, message, auth, held, session);
      if (message.kind === 'request') parts.push(outcome);
    }
  }
  return parts.length === 0 ? accepted() : parts;
}

/** The elements' answers as one: a JSON array when all are complete, else one SSE stream. */
export function combineBatch(responses: Array<Answer | string>): Answer {
  // Streams come as Responses (SSE); everything complete is a string or a Reply.
  if (responses.every((r) => !(r instanceof Response))) {
    const bodies = responses
      .map((r) => (typeof r === 'string' ? r : (r.body ?? '')))
      .filter((b) => b !== '');
    // No element has an answer (its client left: each is an empty 499): no batch answer either,
    // as for a single request; JSON-RPC has no empty batch answer.
    if (bodies.length === 0) return emptyReply(499);
    return jsonResponse(`[${bodies.join(',')}]`);
  }
  return new Response(merge(responses), { headers: SSE_HEADERS });
}

/** The request without `watch()`: each element's exchange follows `signal` (a listener each). */
class SignalOnly implements IncomingRequest {
  readonly #request: IncomingRequest;
  constructor(request: IncomingRequest) {
    this.#request = request;
  }
  get method(): string {
    return this.#request.method;
  }
  get url(): string {
    return this.#request.url;
  }
  get headers(): IncomingRequest['headers'] {
    return this.#request.headers;
  }
  get signal(): AbortSignal {
    return this.#request.signal;
  }
  get body(): ReadableStream<Uint8Array> | null {
    return this.#request.body;
  }
}

/** Interleaves several answers into one SSE body; cancelling it cancels every part. */
function merge(parts: Array<Answer | string>): ReadableStream<Uint8Array> {
  // JSON answers become one event each; SSE answers are passed through frame by frame.
  const readers = parts.map((part) =>
    typeof part === 'string'
      ? part
      : part instanceof Response
        ? part.body?.getReader()
        : (part.body ?? ''),
  );
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      await Promise.all(
        readers.map(async (part) => {
          if (part === undefined) return;
          if (typeof part === 'string') {
            if (part !== '') controller.enqueue(encodeEvent(part));
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
        if (part && typeof part !== 'string') part.cancel(reason).catch(() => {});
      }
    },
  });
}
