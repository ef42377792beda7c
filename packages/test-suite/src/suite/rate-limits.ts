import { LEGACY, legacy, modern, openSession, readAnswer } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { RATE_PROBE } from '../fixture.ts';
import type { Current, TargetCaps } from '../targets/types.ts';
import { waitForLog } from './wait.ts';

/**
 * Rate limits hold for a principal wherever its requests run: in one process, across a Redis
 * cluster's instances (`cluster.rateLimits`), and across a Worker's isolate and its session
 * objects (`DurableObjectRateLimitStore`). With a store per handler, each would give it a burst.
 */
export function rateLimits(current: Current, caps: TargetCaps): void {
  describe('rate limits', () => {
    test("one principal's calls take from one bucket, wherever they run", async () => {
      const { mcpUrl } = current.target;
      // Two sessions where the target keeps them: on workerd, two objects besides the isolate.
      const sessions = caps.sessions
        ? [await openSession(mcpUrl, LEGACY), await openSession(mcpUrl, LEGACY)]
        : [];
      const call = { name: RATE_PROBE.tool, arguments: {} };
      const statuses: number[] = [];
      const refused: Array<{ retryAfter: string | null; body: any }> = [];
      for (let i = 0; i < RATE_PROBE.burst + 4; i++) {
        const where = i % (sessions.length + 1);
        const answer = await fetch(
          mcpUrl,
          where === 0
            ? modern('tools/call', call)
            : legacy('tools/call', call, sessions[where - 1], { version: LEGACY }),
        );
        statuses.push(answer.status);
        if (answer.status === 429)
          refused.push({
            retryAfter: answer.headers.get('retry-after'),
            body: (await readAnswer(answer)).message,
          });
        else await answer.body?.cancel();
      }
      expect(statuses.filter((status) => status !== 429)).toHaveLength(RATE_PROBE.burst);
      expect(statuses.slice(0, RATE_PROBE.burst)).not.toContain(429);
      for (const { retryAfter, body } of refused) {
        expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
        expect(body.error.code).toBe(-32000);
        expect(body.error.data.retryAfterMs).toBeGreaterThan(0);
      }
      expect(
        await waitForLog(
          () => current.target.log(),
          (line) =>
            line.kind === 'request' && line.outcome === 'refused' && line.reason === 'rate-limited',
        ),
      ).toMatchObject({ status: 429, errorCode: -32000 });
    });
  });
}
