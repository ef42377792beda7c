/**
 * The bare `node:http` request listener of the Node ceilings (throughput and start-up): reads the
 * whole body, answers `answer(body)` as JSON in one write.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export function bareNodeListener(
  answer: (body: string) => string,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = answer(Buffer.concat(chunks).toString());
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    });
  };
}
