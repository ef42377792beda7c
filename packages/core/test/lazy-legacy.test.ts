/**
 * The legacy era is loaded on first use (src/endpoint/legacy-era.ts): what `@edge-mcp/core`
 * loads at start-up, bundled as the published build bundles it (esbuild, code split), reaches no
 * legacy or session module, and a legacy request still finds its code and its sessions wired.
 */
import { join } from 'node:path';
import { initializeParams, legacyRequest } from '@edge-mcp/test-kit';
import { build, type Metafile } from 'esbuild';
import { expect, test, vi } from 'vitest';
import { HandlerCore } from '../src/endpoint/handler.ts';
import { createMcpHandler, McpServer } from '../src/index.ts';
import { SessionManager } from '../src/sessions.ts';

const SRC = join(import.meta.dirname, '..', 'src');

/** The modules an output file loads before its code runs: its own, then its static imports'. */
function loadedAtStart(meta: Metafile, output: string, seen = new Set<string>()): Set<string> {
  if (seen.has(output)) return new Set();
  seen.add(output);
  const file = meta.outputs[output];
  if (!file) throw new Error(`no output ${output}`);
  const modules = new Set(Object.keys(file.inputs));
  for (const imported of file.imports) {
    if (imported.kind !== 'import-statement' || imported.external) continue;
    for (const module of loadedAtStart(meta, imported.path, seen)) modules.add(module);
  }
  return modules;
}

test('the core loads no legacy or session module at start-up, only on a dynamic import', async () => {
  const { metafile } = await build({
    entryPoints: [join(SRC, 'index.ts')],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'neutral',
    packages: 'external',
    outdir: 'out',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = Object.entries(metafile.outputs);
  const entry = outputs.find(([, file]) => file.entryPoint?.endsWith('src/index.ts'))?.[0];
  if (!entry) throw new Error('no output for src/index.ts');
  const atStart = [...loadedAtStart(metafile, entry)];
  expect(atStart.some((module) => module.includes('/modern/dispatch.ts'))).toBe(true);
  expect(atStart.filter((module) => /\/src\/(legacy|sessions)\//.test(module))).toEqual([]);
  // The legacy era is still in the build, behind the entry's dynamic import.
  const lazy = metafile.outputs[entry]?.imports.find((i) => i.kind === 'dynamic-import');
  const behind = lazy ? Object.keys(metafile.outputs[lazy.path]?.inputs ?? {}) : [];
  expect(behind.some((module) => module.includes('/legacy/dispatch.ts'))).toBe(true);
});

const initialize = () => legacyRequest('initialize', initializeParams());

test('sessions the caller made are bound before the first request; a legacy request is served', async () => {
  const sessions = new SessionManager();
  const bind = vi.spyOn(sessions, 'bind');
  const handler = createMcpHandler(new McpServer({ name: 't', version: '1' }), { sessions });
  // No request yet: the manager's expiry and bus run from the start.
  await vi.waitFor(() => expect(bind).toHaveBeenCalledOnce());
  const answer = await handler.fetch(initialize());
  expect(answer.status).toBe(200);
  expect(answer.headers.get('mcp-session-id')).toBeTruthy();
  expect(handler.stats().sessions).toBe(1);
  await handler.close();
  expect(handler.stats().sessions).toBe(0);
});

test('the default sessions are made by the first legacy request', async () => {
  const handler = createMcpHandler(new McpServer({ name: 't', version: '1' }));
  expect(handler.stats().sessions).toBe(0);
  const answer = await handler.fetch(initialize());
  expect(answer.headers.get('mcp-session-id')).toBeTruthy();
  expect(handler.stats().sessions).toBe(1);
  await handler.close();
  expect(handler.stats().sessions).toBe(0);
});

test('close() while the legacy era loads waits for it and ends the sessions it wired', async () => {
  const sessions = new SessionManager();
  const bind = vi.spyOn(sessions, 'bind');
  const closeAll = vi.spyOn(sessions, 'closeAll');
  const handler = createMcpHandler(new McpServer({ name: 't', version: '1' }), { sessions });
  // The constructor began the load; close() at once must not skip the manager it binds.
  expect(bind).not.toHaveBeenCalled();
  await handler.close();
  expect(bind).toHaveBeenCalledOnce();
  expect(closeAll).toHaveBeenCalledWith('shutdown');
});

test('a legacy era first loaded after shutdown wires nothing that close() would not undo', async () => {
  const core = new HandlerCore(new McpServer({ name: 't', version: '1' }), {});
  await core.close();
  // A legacy request that passed the guards before close() reaches its era only now.
  const era = await core.legacyEra();
  expect(typeof era.handleLegacy).toBe('function');
  expect(core.sessions).toBeUndefined();
});
