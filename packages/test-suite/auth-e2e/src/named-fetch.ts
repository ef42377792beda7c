/**
 * A `fetch` for clients that address a public name this machine cannot resolve
 * (`mcp.example.test:8080`): a request to one of `names` goes to the address it maps to, with
 * the name in its Host header, as DNS would have sent it; any other request is left to `fetch`.
 * The response streams (event streams included).
 */
import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';

export function namedFetch(names: Readonly<Record<string, string>>): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const target = names[url.host];
    if (target === undefined) return fetch(request);
    const [hostname, port] = target.split(':');
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    return new Promise<Response>((resolve, reject) => {
      const outgoing = httpRequest(
        {
          hostname,
          port: Number(port),
          path: `${url.pathname}${url.search}`,
          method: request.method,
          headers: { ...Object.fromEntries(request.headers), host: url.host },
          signal: request.signal,
        },
        (incoming) => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(incoming.headers))
            for (const item of [value ?? []].flat()) headers.append(name, item);
          const status = incoming.statusCode ?? 502;
          const empty = request.method === 'HEAD' || [204, 205, 304].includes(status);
          if (empty) incoming.resume();
          resolve(
            new Response(empty ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>), {
              status,
              statusText: incoming.statusMessage,
              headers,
            }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  };
}
