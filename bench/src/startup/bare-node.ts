/** Start-up ceiling on Node: a bare `node:http` handler answering the echo result. */
import { createServer } from 'node:http';
import { bareResult } from '../entries/bare-result.ts';
import { HOSTNAME, port } from './env.ts';

createServer((req, res) => {
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
}).listen(port(), HOSTNAME);
