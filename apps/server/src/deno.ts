/**
 * `pnpm start:deno`: the example on Deno (Deno.serve); see start.ts for what it reads. The start
 * script's --allow-env lists every variable read (node-redis reads two while connecting).
 *
 * Run with `--unstable-no-legacy-abort` (the start script does) so that `request.signal` aborts
 * only when a client disconnects; see the Deno section of packages/adapters/README.md.
 */
import { serve } from '@edge-mcp/adapters/deno';
import { startExample } from './start.ts';

await startExample({
  name: 'deno',
  env: (name) => Deno.env.get(name),
  exit: (code) => Deno.exit(code),
  serve,
});
