/**
 * The rest of a refused upload: a request answered with an error before its body was read (a
 * 401 for a bad token, a 413, a 429 …) whose client is still sending. Keeping the connection
 * alive would make the runtime read all of it into nothing, however large (34.6 GiB in 60 s after
 * one 401 on Node); cutting it at once can make a client still writing fail with EPIPE before it
 * reads the answer. So, as Node's adapter does with a lingering close, a bounded part is read and
 * the connection is closed if more is coming.
 *
 * @module
 */

/** How long, at most, the rest of a refused upload is read (into nothing) before the cut. */
export const LINGER_MS = 2_000;

/** How many bytes of it are read, at most, in that time. */
export const LINGER_BYTES = 8 * 1024 * 1024;

/**
 * The largest declared body the runtime may read off the wire into nothing after a refusal so
 * that the connection stays open. A refusal made before the body was read (a rate limit answers
 * a principal out of tokens at once) would otherwise close every connection of a client over its
 * limit, and the reconnects cost more than the few bytes.
 */
export const DISCARD_BYTES = 64 * 1024;

/** Whether the request declared a body of at most DISCARD_BYTES (chunked: unknown, so no). */
export function smallDeclared(length: string | null | undefined): boolean {
  return length !== null && length !== undefined && Number(length) <= DISCARD_BYTES;
}

/**
 * What an adapter can do about a refused body on its runtime: `drain` it (read up to the bounds
 * above, then close if more is coming: Bun), or only `close` the connection once the answer is out
 * (Deno, whose server reads the body to its end whatever the answer, and where asking whether the
 * body was read makes a body stream that keeps the connection waiting).
 */
export type RefusedBody = 'close' | 'drain';

/**
 * Whether the request came with a body, by its framing headers. An error answer that closes a
 * connection whose body was read costs only that connection's keep-alive.
 */
export function hasBody(request: Request): boolean {
  const length = request.headers.get('content-length');
  return (length !== null && length !== '0') || request.headers.has('transfer-encoding');
}

/** Whether `response` is an error answer to a request that came with a body. */
export function refusesBody(request: Request, status: number): boolean {
  return status >= 400 && hasBody(request);
}

/**
 * `response` as it should go out after a refusal (see `refusesBody`): as it is when the body was
 * read or the rest of it arrived within the bounds, else marked `Connection: close`.
 */
export async function afterRefusal(
  request: Request,
  response: Response,
  mode: RefusedBody,
): Promise<Response> {
  if (mode === 'drain' && (request.bodyUsed || (await drained(request)))) return response;
  // Deno reads the body to its end whatever the answer: a small one costs nothing to keep.
  if (mode === 'close' && smallDeclared(request.headers.get('content-length'))) return response;
  // A new Response, not a header set on this one: Deno reads the framing headers when a Response
  // is made, so one set afterwards is sent but does not close the connection.
  const headers = new Headers(response.headers);
  headers.set('connection', 'close');
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/** Reads the rest of the body into nothing: true if it ended within the bounds. */
export async function drained(request: Request): Promise<boolean> {
  const body = request.body;
  if (body === null) return true;
  const reader = body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(resolve, LINGER_MS, 'late');
  });
  try {
    let read = 0;
    for (;;) {
      const next = await Promise.race([reader.read(), late]);
      if (next === 'late') return false;
      if (next.done) return true;
      read += next.value.byteLength;
      if (read > LINGER_BYTES) return false;
    }
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
}
