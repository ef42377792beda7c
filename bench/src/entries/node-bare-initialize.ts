/**
 * Reference for session creation: a bare `node:http` handler that answers `initialize` with the
 * shape edge-mcp answers (capabilities, server info, a fresh `Mcp-Session-Id`) and keeps nothing.
 * What a server that also remembers its sessions is measured against.
 */
import { createServer } from 'node:http';
import { HOST, nodeSideChannel, PORT, serveSideChannel } from './node-env.ts';

const TAIL = JSON.stringify({
  capabilities: { logging: {}, tools: { listChanged: true } },
  serverInfo: { name: 'bench', version: '1.0.0' },
}).slice(1);

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const message = JSON.parse(Buffer.concat(chunks).toString()) as {
      id?: string | number;
      params?: { protocolVersion?: string };
    };
    const version = JSON.stringify(message.params?.protocolVersion ?? '2025-11-25');
    const body = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id ?? null)},"result":{"protocolVersion":${version},${TAIL}}`;
    res.writeHead(200, {
      'content-type': 'application/json',
      'mcp-session-id': crypto.randomUUID(),
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
});
await new Promise<void>((resolve) => server.listen(PORT, HOST, resolve));
await serveSideChannel(nodeSideChannel());
