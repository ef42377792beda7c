/**
 * The official MCP TypeScript SDK v2 client (`@modelcontextprotocol/client`) bundled for the
 * browser with esbuild, as a web app would ship it: one classic script that defines
 * `globalThis.McpSdk = { Client, StreamableHTTPClientTransport }`.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The global the bundle defines. */
export const SDK_GLOBAL = 'McpSdk';

/**
 * Bundles the SDK v2 client for the browser (`platform: 'browser'`: the package's `browser`
 * export conditions, no Node built-ins) into an IIFE; resolves with its source.
 */
export async function bundleSdkClient(): Promise<string> {
  const result = await build({
    stdin: {
      contents:
        "export { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';",
      resolveDir: fileURLToPath(new URL('.', import.meta.url)),
      sourcefile: 'mcp-sdk-entry.js',
      loader: 'js',
    },
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: SDK_GLOBAL,
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  if (result.warnings.length > 0)
    throw new Error(`esbuild warned: ${result.warnings.map((w) => w.text).join('; ')}`);
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error('esbuild produced no bundle');
  return output.text;
}
