import { initialize, LEGACY, legacyGet, modern, SseReader } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import type { Current, TargetCaps } from '../targets/types.ts';

export function shutdown(current: Current, caps: TargetCaps): void {
  // workerd: the platform owns the isolate's lifetime; there is no server shutdown to trigger.
  describe(`shutdown ends everything${caps.shutdown ? '' : ' (skipped: workerd has no server shutdown, the runtime owns the isolate)'}`, () => {
    test.skipIf(!caps.shutdown)(
      'in-flight calls end, listen streams get their completing result, GET streams end, the process exits',
      async () => {
        const { mcpUrl, url } = current.target;
        const listen = await fetch(
          mcpUrl,
          modern(
            'subscriptions/listen',
            { notifications: { toolsListChanged: true } },
            { id: 'listen-bye' },
          ),
        );
        const calls = Array.from({ length: 5 }, (_, i) =>
          fetch(
            mcpUrl,
            modern('tools/call', { name: 'sleep', arguments: { ms: 60_000 } }, { id: `bye-${i}` }),
          ).then(
            async (r) => r.status,
            () => 0,
          ),
        );
        let get: Response | undefined;
        if (caps.sessions) {
          const { session } = await initialize(mcpUrl, LEGACY);
          get = await fetch(mcpUrl, legacyGet(session));
        }
        await expect
          .poll(async () => (await (await fetch(`${url}/health`)).json()).inFlight, {
            interval: 20,
            timeout: 20_000,
          })
          .toBeGreaterThanOrEqual(6);
        const exit = await current.target.shutdown();
        if (caps.shutdown === 'process') expect(exit.code).toBe(0);
        const messages = await new SseReader(listen).rest();
        expect(messages[0]?.method).toBe('notifications/subscriptions/acknowledged');
        expect(messages.at(-1)).toMatchObject({
          id: 'listen-bye',
          result: { resultType: 'complete' },
        });
        for (const status of await Promise.all(calls)) expect(status).toBe(503);
        if (get) await new SseReader(get).rest();
      },
    );
  });
}
