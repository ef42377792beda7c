/** Target: a bare `node:http` handler answering the echo result (the Node ceiling). */
import { createServer } from 'node:http';
import { bareResult } from './bare-result.ts';
import { HOST, nodeSideChannel, PORT, serveSideChannel } from './node-env.ts';

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = bareResult(Buffer.concat(chunks).toString());
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
});
await new Promise<void>((resolve) => server.listen(PORT, HOST, resolve));
await serveSideChannel(nodeSideChannel());
