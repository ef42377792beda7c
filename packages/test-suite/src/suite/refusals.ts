import { request as httpRequest } from 'node:http';
import { ACCEPT, LEGACY, legacy, modern } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import type { Current, LogLine } from '../targets/types.ts';
import { waitForLog } from './wait.ts';

/** A POST of a modern `tools/list` with the Host header set, which `fetch` does not allow. */
function postWithHost(mcpUrl: string, host: string): Promise<number> {
  const init = modern('tools/list');
  const body = String(init.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      mcpUrl,
      {
        method: 'POST',
        headers: {
          ...(init.headers as Record<string, string>),
          host,
          'content-length': body.length,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The refused line of the log with `reason`, once it is there. */
function refusedLine(current: Current, reason: string): Promise<LogLine> {
  return waitForLog(
    () => current.target.log(),
    (line) => line.kind === 'request' && line.outcome === 'refused' && line.reason === reason,
  );
}

/**
 * Requests refused before dispatch are in the request log with their status and reason, on every
 * runtime: the first sight of a misconfigured proxy (403 Host) or a stale session (404) is a log
 * line that says so, not an empty log.
 */
export function refusals(current: Current): void {
  describe('refused requests are in the request log with their reason', () => {
    // A wrong path is the app's (the suite's targets mount the handler in the example's Hono
    // app); the handler's own path refusal is in the core's tests.
    test('Host, Origin, size and session refusals', async () => {
      const { mcpUrl } = current.target;
      expect(await postWithHost(mcpUrl, 'rebind.example.test')).toBe(403);
      expect(await refusedLine(current, 'host-not-allowed')).toMatchObject({
        status: 403,
        method: 'POST',
        errorCode: -32600,
      });
      const origin = await fetch(
        mcpUrl,
        modern('tools/list', {}, { headers: { origin: 'http://evil.example.com' } }),
      );
      expect(origin.status).toBe(403);
      await origin.body?.cancel();
      expect(await refusedLine(current, 'origin-not-allowed')).toMatchObject({ status: 403 });
      const big = await fetch(mcpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT },
        body: `{"pad":"${'x'.repeat(5 * 1024 * 1024)}"}`,
      });
      expect(big.status).toBe(413);
      await big.body?.cancel();
      expect(await refusedLine(current, 'body-too-large')).toMatchObject({ status: 413 });
      const stale = await fetch(
        mcpUrl,
        legacy('tools/list', {}, 'no-such-session', { version: LEGACY }),
      );
      expect(stale.status).toBe(404);
      await stale.body?.cancel();
      expect(await refusedLine(current, 'session-unknown')).toMatchObject({
        status: 404,
        errorCode: -32001,
        sessionId: 'no-such-session',
      });
    });
  });
}
