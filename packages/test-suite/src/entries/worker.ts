/** The suite's app on workerd (wrangler dev with ../../wrangler.jsonc), modern and legacy without sessions. */
import { createWorker, WORKERD_HANDLER_OPTIONS } from '@edge-mcp/adapters/cloudflare';
import { createSuiteApp, type FixtureKind } from '../fixture.ts';

interface Env {
  FIXTURE?: string;
  KEEP_ALIVE_MS?: string;
}

export default createWorker((env: Env) => {
  const { app } = createSuiteApp('workerd', (env.FIXTURE ?? 'suite') as FixtureKind, {
    ...WORKERD_HANDLER_OPTIONS,
    keepAliveMs: Number(env.KEEP_ALIVE_MS ?? WORKERD_HANDLER_OPTIONS.keepAliveMs),
    sessions: false,
  });
  return app;
});
