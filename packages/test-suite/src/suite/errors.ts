import { ACCEPT, modern } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import type { Current } from '../targets/types.ts';

export function errors(current: Current): void {
  describe('bad input gets a clear answer', () => {
    test('HTTP statuses and JSON-RPC codes', async () => {
      const { mcpUrl, url } = current.target;
      const post = (body: string, headers: Record<string, string> = {}) =>
        fetch(mcpUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
          body,
        });
      const malformed = await post('{"jsonrpc":');
      expect([malformed.status, (await malformed.json()).error.code]).toEqual([400, -32700]);
      const notRpc = await post('{"hello":1}');
      expect([notRpc.status, (await notRpc.json()).error.code]).toEqual([400, -32600]);
      expect((await post('{}', { 'content-type': 'text/plain' })).status).toBe(415);
      expect((await post('{}', { accept: 'text/html' })).status).toBe(406);
      const mismatch = await fetch(
        mcpUrl,
        modern('tools/list', {}, { headers: { 'mcp-method': 'prompts/list' } }),
      );
      expect([mismatch.status, (await mismatch.json()).error.code]).toEqual([400, -32020]);
      const unsupported = await fetch(
        mcpUrl,
        modern(
          'tools/list',
          {},
          {
            headers: { 'mcp-protocol-version': 'v9' },
            meta: { 'io.modelcontextprotocol/protocolVersion': 'v9' },
          },
        ),
      );
      const body = await unsupported.json();
      expect([unsupported.status, body.error.code]).toEqual([400, -32022]);
      expect(body.error.data.supported).toContain('2026-07-28');
      const unknown = await fetch(mcpUrl, modern('nope/nothing'));
      expect([unknown.status, (await unknown.json()).error.code]).toEqual([404, -32601]);
      const badArgs = await (
        await fetch(mcpUrl, modern('tools/call', { name: 'add', arguments: { a: 'x' } }))
      ).json();
      expect(badArgs.error.code).toBe(-32602);
      const tooBig = await post(`{"pad":"${'x'.repeat(5 * 1024 * 1024)}"}`);
      expect(tooBig.status).toBe(413);
      const foreign = await fetch(
        mcpUrl,
        modern('tools/list', {}, { headers: { origin: 'http://evil.example.com' } }),
      );
      expect(foreign.status).toBe(403);
      // The server keeps serving.
      expect((await fetch(`${url}/health`)).status).toBe(200);
    });
  });
}
