import type { IncomingRequest } from './incoming.ts';

/** The body was larger than the limit (answered 413). */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  readonly limit: number;
  constructor(limit: number) {
    super(`Request body exceeds ${limit} bytes`);
    this.limit = limit;
  }
}

const decoder = new TextDecoder();

/**
 * Reads the body as text, enforcing `limit` while reading: a declared Content-Length over the
 * limit is refused before any byte is read, and a stream that grows past it is cancelled at once.
 */
export function readBody(request: IncomingRequest, limit: number): Promise<string> {
  // The adapter's own reader is returned as it is: wrapping it would cost microtask hops.
  if (request.readText) return request.readText(limit);
  return readStream(request, limit);
}

async function readStream(request: IncomingRequest, limit: number): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) throw new BodyTooLargeError(limit);
  const body = request.body;
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => {});
      throw new BodyTooLargeError(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return decoder.decode(chunks[0]);
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decoder.decode(all);
}
