import { initialize, legacy, MODERN, modern, SseReader } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import type { Current } from '../targets/types.ts';

export function basics(current: Current): void {
  describe('protocol basics of both eras', () => {
    test('2026-07-28: discover, list, call (JSON), call with progress (SSE)', async () => {
      const { mcpUrl } = current.target;
      const discover = await (await fetch(mcpUrl, modern('server/discover'))).json();
      expect(discover.result.supportedVersions).toContain(MODERN);
      expect(discover.result.resultType).toBe('complete');
      const list = await (await fetch(mcpUrl, modern('tools/list'))).json();
      expect(list.result.tools.map((t: { name: string }) => t.name)).toEqual(
        expect.arrayContaining(['echo', 'sleep', 'add']),
      );
      expect(list.result).toMatchObject({
        ttlMs: expect.any(Number),
        cacheScope: expect.any(String),
      });
      const add = await (
        await fetch(mcpUrl, modern('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }))
      ).json();
      expect(add.result.structuredContent).toEqual({ sum: 3 });
      const response = await fetch(
        mcpUrl,
        modern(
          'tools/call',
          { name: 'sleep', arguments: { ms: 1100 } },
          { meta: { progressToken: 'p' } },
        ),
      );
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const messages = await new SseReader(response).rest();
      expect(
        messages.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress),
      ).toEqual([0, 1000]);
      expect(messages.at(-1)?.result.content[0].text).toBe('slept 1100 ms');
    });

    test("the example's skill: declared, listed by skills/list, its files read under skill://", async () => {
      const { mcpUrl } = current.target;
      const discover = await (await fetch(mcpUrl, modern('server/discover'))).json();
      expect(discover.result.capabilities.extensions).toHaveProperty([
        'io.modelcontextprotocol/skills',
      ]);
      const listed = await (await fetch(mcpUrl, modern('skills/list'))).json();
      const uris = listed.result.skills.map((skill: { uri: string }) => skill.uri);
      expect(uris).toContain('skill://notes-writer/SKILL.md');
      const read = await (
        await fetch(
          mcpUrl,
          modern('resources/read', { uri: 'skill://notes-writer/templates/note.md' }),
        )
      ).json();
      expect(read.result.contents[0].text).toContain('<what to do next>');
    });

    test('2026-07-28: input-required round trip (elicitation through MRTR)', async () => {
      const { mcpUrl } = current.target;
      const meta = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
      const first = await (
        await fetch(mcpUrl, modern('tools/call', { name: 'greet', arguments: {} }, { meta }))
      ).json();
      expect(first.result.resultType).toBe('input_required');
      const retry = await (
        await fetch(
          mcpUrl,
          modern(
            'tools/call',
            {
              name: 'greet',
              arguments: {},
              requestState: first.result.requestState,
              inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
            },
            { meta },
          ),
        )
      ).json();
      expect(retry.result.content[0].text).toBe('Hello, Ada!');
    });

    test('legacy: initialize negotiates, then list and call', async () => {
      const { mcpUrl } = current.target;
      const { session, result } = await initialize(mcpUrl, '2025-06-18');
      expect(result.protocolVersion).toBe('2025-06-18');
      const list = await (
        await fetch(mcpUrl, legacy('tools/list', {}, session, { version: '2025-06-18' }))
      ).json();
      expect(list.result.tools.length).toBeGreaterThan(3);
      expect(list.result.ttlMs).toBeUndefined();
      const echo = await (
        await fetch(
          mcpUrl,
          legacy('tools/call', { name: 'echo', arguments: { text: 'hi' } }, session, {
            version: '2025-06-18',
          }),
        )
      ).json();
      expect(echo.result.content[0].text).toBe('hi');
    });
  });
}
