/** `pnpm start`: the example on Node (node:http); see start.ts for what it reads. */
import { serve } from '@edge-mcp/adapters/node';
import { startExample } from './start.ts';

await startExample({
  name: 'node',
  env: (name) => process.env[name],
  exit: (code) => process.exit(code),
  serve,
});
