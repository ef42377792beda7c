/** The suite's app on Bun: `bun run src/entries/bun.ts` with PORT (and FIXTURE). */
import { serve } from '@edge-mcp/adapters/bun';
import { createSuiteApp, type FixtureKind } from '../fixture.ts';

const { app, handler } = createSuiteApp('bun', (process.env.FIXTURE ?? 'suite') as FixtureKind, {
  disconnectGraceMs: Number(process.env.GRACE_MS ?? 30_000),
});
const server = await serve(
  { fetch: app.fetch, close: () => handler.close() },
  { port: Number(process.env.PORT ?? 8787), hostname: '127.0.0.1' },
);
console.error(`listening ${server.url}`);
