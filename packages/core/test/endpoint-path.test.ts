import { modernRequest, readAnswer } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { HANDLE } from '../src/adapter.ts';
import { createMcpHandler, McpServer } from '../src/index.ts';

function server(): McpServer {
  const s = new McpServer({ name: 'path', version: '1' });
  s.tool('echo', {}, () => 'here');
  return s;
}

const echo = (url: string) => modernRequest('tools/call', { name: 'echo' }, { url });

describe('the endpoint path', () => {
  test('fetch() answers MCP on /mcp only by default; any other path is 404', async () => {
    const handler = createMcpHandler(server());
    const ok = await readAnswer(await handler.fetch(echo('http://127.0.0.1:8787/mcp?x=1')));
    expect(ok.message.result.content[0].text).toBe('here');
    for (const path of ['/not-mcp', '/', '/mcp/', '/mcpx', '/api/mcp']) {
      const answer = await readAnswer(await handler.fetch(echo(`http://127.0.0.1:8787${path}`)));
      expect(answer.status, path).toBe(404);
      expect(answer.message.error.message).toBe('Not found: the MCP endpoint is /mcp');
    }
  });

  test('a path option moves it; false serves every path', async () => {
    const moved = createMcpHandler(server(), { path: '/api/mcp' });
    expect((await moved.fetch(echo('http://127.0.0.1/api/mcp'))).status).toBe(200);
    expect((await moved.fetch(echo('http://127.0.0.1/mcp'))).status).toBe(404);
    const anywhere = createMcpHandler(server(), { path: false });
    expect((await anywhere.fetch(echo('http://127.0.0.1/whatever'))).status).toBe(200);
  });

  test('a framework that routed the request (routed: true) is not second-guessed', async () => {
    const handler = createMcpHandler(server());
    const answer = await handler[HANDLE](echo('http://127.0.0.1/mounted/elsewhere'), true);
    expect(answer.status).toBe(200);
    expect((await handler[HANDLE](echo('http://127.0.0.1/mounted/elsewhere'))).status).toBe(404);
  });
});
