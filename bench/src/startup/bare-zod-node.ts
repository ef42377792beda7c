/** The floor of a zod server on Node: `node:http` answering the echo after zod (src/entries/bare-zod.ts). */
import { createServer } from 'node:http';
import { bareZodResult } from '../entries/bare-zod.ts';
import { HOSTNAME, port } from './env.ts';

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = bareZodResult(Buffer.concat(chunks).toString());
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
}).listen(port(), HOSTNAME);
