/**
 * The Cloudflare costs that are not requests per second (README.md, Method): Durable Object
 * storage operations per 1,000 legacy calls, counted by the entry, and the bundle
 * `wrangler deploy --dry-run` would upload, raw, gzipped and its zod bytes.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { Config } from '../config.ts';
import type { StorageCounts } from '../entries/storage-counter.ts';
import { getJson } from '../lib/http.ts';
import { load } from '../lib/load.ts';
import { checkEcho, echoCall, openSession } from '../lib/mcp.ts';
import { BENCH_DIR, wranglerScript } from '../lib/paths.ts';
import { WRANGLER_ENV } from '../lib/spawn.ts';
import { spread } from '../lib/stats.ts';
import type { BundleTarget, StorageTarget } from '../targets-cloudflare.ts';
import { measureRows, spreadsOf, withTarget } from './measure.ts';

function storageOnce(target: StorageTarget, config: Config) {
  return withTarget(target.spec, async (server) => {
    const counts = () => getJson<StorageCounts>(`${server.url}/bench/storage`);
    const start = await counts();
    const sessionId = await openSession(server.mcpUrl, target.version);
    const opened = await counts();
    const shape = echoCall('legacy', target.version, sessionId);
    await checkEcho(server.mcpUrl, shape);
    const common = { url: server.mcpUrl, shape, connections: config.connections };
    await load({ ...common, amount: config.quick ? 50 : 200 });
    const before = await counts();
    const result = await load({ ...common, amount: config.quick ? 200 : 2000 });
    const after = await counts();
    if (result.ok === 0) throw new Error(`no call answered: ${JSON.stringify(result.statuses)}`);
    const per1k = (name: keyof Omit<StorageCounts, 'calls'>) =>
      ((after[name] - before[name]) * 1000) / result.ok;
    const methods: Record<string, number> = {};
    for (const [name, count] of Object.entries(after.calls)) {
      const diff = count - (before.calls[name] ?? 0);
      if (diff > 0) methods[name] = diff;
    }
    return {
      // Calls answered in the counted part.
      calls: result.ok,
      readsPer1k: per1k('reads'),
      writesPer1k: per1k('writes'),
      rowsReadPer1k: per1k('rowsRead'),
      rowsWrittenPer1k: per1k('rowsWritten'),
      // Storage operations of `initialize` + `notifications/initialized`.
      open: { reads: opened.reads - start.reads, writes: opened.writes - start.writes },
      // Counted calls per storage method over the counted part.
      methods,
    };
  });
}

function run(file: string, args: string[]): Promise<unknown> {
  const env = { ...process.env, ...WRANGLER_ENV };
  const running = promisify(execFile)(file, args, { cwd: BENCH_DIR, env, maxBuffer: 2 ** 26 });
  running.child.stdin?.end();
  return running;
}

interface Metafile {
  outputs: Record<
    string,
    { entryPoint?: string; inputs: Record<string, { bytesInOutput: number }> }
  >;
}

async function bundleOnce(target: BundleTarget) {
  const dir = mkdtempSync(join(tmpdir(), 'edge-mcp-bench-deploy-'));
  try {
    const out = join(dir, 'out');
    const meta = join(dir, 'meta.json');
    await run(process.execPath, [
      wranglerScript(),
      'deploy',
      '--dry-run',
      '--outdir',
      out,
      '--metafile',
      meta,
      '--config',
      target.config,
      `src/deploy/${target.entry}`,
    ]);
    // What would be uploaded: the modules (wrangler adds a README and source maps beside them).
    const files = readdirSync(out).filter((f) => /\.(m?js|wasm|bin|txt|html)$/.test(f));
    let rawBytes = 0;
    let gzipBytes = 0;
    for (const file of files) {
      const bytes = readFileSync(join(out, file));
      rawBytes += bytes.length;
      gzipBytes += gzipSync(bytes).length;
    }
    const metafile = JSON.parse(readFileSync(meta, 'utf8')) as Metafile;
    let schemaBytes = 0;
    for (const output of Object.values(metafile.outputs)) {
      for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
        if (/node_modules\/zod\//.test(input)) schemaBytes += bytesInOutput;
      }
    }
    // schemaBytes: the bytes of the output that come from zod (esbuild's metafile).
    return { rawBytes, gzipBytes, schemaBytes, files };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const KiB = (bytes: number) => bytes / 1024;

export type CloudflareResults = Awaited<ReturnType<typeof runCloudflare>>;
export type StorageRow = CloudflareResults['storage'][number];
export type StorageSample = StorageRow['samples'][number];
export type BundleRow = CloudflareResults['bundles'][number];

/** The storage targets' rounds, then the bundles'. */
export async function runCloudflare(
  storageTargets: readonly StorageTarget[],
  bundleTargets: readonly BundleTarget[],
  config: Config,
  log: (line: string) => void,
) {
  const storage = await measureRows(storageTargets, config.rounds, log, {
    name: (t) => t.id.padEnd(36),
    once: (t) => storageOnce(t, config),
    describe: (s) =>
      `per 1,000 calls: ${s.readsPer1k.toFixed(1)} reads, ${s.writesPer1k.toFixed(1)} writes (${s.calls} calls)`,
    row: (t, samples) => ({
      label: t.label,
      library: t.library,
      ...spreadsOf(samples, ['readsPer1k', 'writesPer1k', 'rowsReadPer1k', 'rowsWrittenPer1k']),
    }),
  });
  const bundles = await measureRows(bundleTargets, config.rounds, log, {
    name: (t) => t.id.padEnd(36),
    once: bundleOnce,
    describe: (s) => `${KiB(s.rawBytes).toFixed(1)} KiB, gzip ${KiB(s.gzipBytes).toFixed(1)} KiB`,
    row: (t, samples) => {
      const kib = (pick: (s: (typeof samples)[number]) => number) =>
        spread(samples.map((s) => KiB(pick(s))));
      return {
        label: t.label,
        library: t.library,
        rawKiB: kib((s) => s.rawBytes),
        gzipKiB: kib((s) => s.gzipBytes),
        schemaKiB: kib((s) => s.schemaBytes),
      };
    },
  });
  return { storage, bundles };
}
