/** `pnpm start:bun`: the example on Bun (Bun.serve); see start.ts for what it reads. */
import { serve } from '@edge-mcp/adapters/bun';
import { startExample } from './start.ts';

await startExample({
  name: 'bun',
  env: (name) => process.env[name],
  exit: (code) => process.exit(code),
  serve,
});
