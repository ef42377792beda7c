import type { BodyCharge, IncomingRequest } from './incoming.ts';

/** The body was larger than the limit (answered 413). */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  readonly limit: number;
  constructor(limit: number) {
    super(`Request body exceeds ${limit} bytes`);
    this.limit = limit;
  }
}

/** The body would take the in-flight byte budget past its limit (answered 429 or 503). */
export class BudgetExceededError extends Error {
  override readonly name = 'BudgetExceededError';
  constructor() {
    super('The request body does not fit the in-flight byte budget');
  }
}

const decoder = new TextDecoder();

/**
 * Reads the body as text, enforcing `limit` while reading: a declared Content-Length over the
 * limit is refused before any byte is read, and a stream that grows past it is cancelled at once.
 * With `charge`, each chunk is charged as it arrives (`BudgetExceededError` when refused).
 */
export function readBody(
  request: IncomingRequest,
  limit: number,
  charge?: BodyCharge,
): Promise<string> {
  // The adapter's own reader is returned as it is: wrapping it would cost microtask hops.
  if (request.readText) return request.readText(limit, charge);
  return readStream(request, limit, charge);
}

async function readStream(
  request: IncomingRequest,
  limit: number,
  charge: BodyCharge | undefined,
): Promise<string> {
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
    if (charge !== undefined && !charge.take(value.byteLength)) {
      reader.cancel().catch(() => {});
      throw new BudgetExceededError();
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
