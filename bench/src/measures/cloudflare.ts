/**
 * The Cloudflare costs that are not requests per second, in interleaved rounds like the others:
 *
 * - Storage: per round and target a fresh `wrangler dev`, one legacy session opened, `warm`
 *   calls (not counted), then `calls` echo calls with autocannon; the object's storage
 *   operations (counted by the entry through the storage API, read from `/bench/storage` before
 *   and after) divided by the calls answered, × 1,000. What opening the session cost is kept too.
 * - Bundles: `wrangler deploy --dry-run --outdir` (no network) on each src/deploy entry; the
 *   modules it would upload (no source maps), raw and gzipped (node:zlib, default level), and
 *   from its esbuild metafile the bytes a schema library (zod) contributes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Config } from '../config.ts';
import type { StorageCounts } from '../entries/storage-counter.ts';
import { getJson } from '../lib/http.ts';
import { load } from '../lib/load.ts';
import { checkEcho, echoCall, openSession } from '../lib/mcp.ts';
import { BENCH_DIR, wranglerScript } from '../lib/paths.ts';
import { messageOf, runRounds } from '../lib/rounds.ts';
import { startTarget, WRANGLER_ENV } from '../lib/spawn.ts';
import { type Spread, spread } from '../lib/stats.ts';
import { loadAverage } from '../lib/system.ts';
import type { Library } from '../targets.ts';
import type { BundleTarget, StorageTarget } from '../targets-cloudflare.ts';

export interface StorageSample {
  round: number;
  position: number;
  load1: number;
  /** Calls answered in the counted part. */
  calls: number;
  readsPer1k: number;
  writesPer1k: number;
  rowsReadPer1k: number;
  rowsWrittenPer1k: number;
  /** Storage operations of `initialize` + `notifications/initialized`. */
  open: { reads: number; writes: number };
  /** Counted calls per storage method over the counted part. */
  methods: Record<string, number>;
}

export interface StorageRow {
  id: string;
  label: string;
  library: Library;
  samples: StorageSample[];
  readsPer1k: Spread | null;
  writesPer1k: Spread | null;
  rowsReadPer1k: Spread | null;
  rowsWrittenPer1k: Spread | null;
  errors: string[];
  skipped?: string;
}

export interface BundleSample {
  round: number;
  rawBytes: number;
  gzipBytes: number;
  /** Bytes of the output that come from zod (esbuild's metafile), 0 when none. */
  schemaBytes: number;
  files: string[];
}

export interface BundleRow {
  id: string;
  label: string;
  library: Library;
  samples: BundleSample[];
  rawKiB: Spread | null;
  gzipKiB: Spread | null;
  schemaKiB: Spread | null;
  errors: string[];
  skipped?: string;
}

export interface CloudflareResults {
  storage: StorageRow[];
  bundles: BundleRow[];
}

const delta = (after: StorageCounts, before: StorageCounts) => ({
  reads: after.reads - before.reads,
  writes: after.writes - before.writes,
  rowsRead: after.rowsRead - before.rowsRead,
  rowsWritten: after.rowsWritten - before.rowsWritten,
});

async function storageOnce(
  target: StorageTarget,
  config: Config,
  round: number,
  position: number,
): Promise<StorageSample> {
  const load1 = loadAverage()[0];
  const server = await startTarget(target.spec);
  const counts = () => getJson<StorageCounts>(`${server.url}/bench/storage`);
  try {
    const start = await counts();
    const sessionId = await openSession(server.mcpUrl, target.version);
    if (!sessionId) throw new Error('no Mcp-Session-Id');
    const opened = await counts();
    const shape = echoCall('legacy', target.version, sessionId);
    await checkEcho(server.mcpUrl, shape);
    const common = { url: server.mcpUrl, shape, connections: config.connections };
    await load({ ...common, amount: config.quick ? 50 : 200 });
    const before = await counts();
    const result = await load({ ...common, amount: config.quick ? 200 : 2000 });
    const after = await counts();
    if (result.ok === 0) throw new Error(`no call answered: ${JSON.stringify(result.statuses)}`);
    const d = delta(after, before);
    const per1k = (value: number) => (value * 1000) / result.ok;
    const methods: Record<string, number> = {};
    for (const [name, count] of Object.entries(after.calls)) {
      const diff = count - (before.calls[name] ?? 0);
      if (diff > 0) methods[name] = diff;
    }
    const open = delta(opened, start);
    return {
      round,
      position,
      load1,
      calls: result.ok,
      readsPer1k: per1k(d.reads),
      writesPer1k: per1k(d.writes),
      rowsReadPer1k: per1k(d.rowsRead),
      rowsWrittenPer1k: per1k(d.rowsWritten),
      open: { reads: open.reads, writes: open.writes },
      methods,
    };
  } finally {
    await server.stop();
  }
}

function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: BENCH_DIR,
      env: { ...process.env, ...WRANGLER_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`exit ${code}: ${output.slice(-2000)}`)),
    );
  });
}

interface Metafile {
  outputs: Record<
    string,
    { entryPoint?: string; inputs: Record<string, { bytesInOutput: number }> }
  >;
}

async function bundleOnce(target: BundleTarget, round: number): Promise<BundleSample> {
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
    return { round, rawBytes, gzipBytes, schemaBytes, files };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const KiB = (bytes: number) => bytes / 1024;

export async function runCloudflare(
  storageTargets: readonly StorageTarget[],
  bundleTargets: readonly BundleTarget[],
  config: Config,
  log: (line: string) => void,
): Promise<CloudflareResults> {
  const skipped = new Map<string, string>();
  for (const target of [...storageTargets, ...bundleTargets]) {
    const reason = target.unavailable?.();
    if (reason) skipped.set(target.id, reason);
  }
  const items = [
    ...storageTargets
      .filter((t) => !skipped.has(t.id))
      .map((t) => ({ kind: 'storage', t }) as const),
    ...bundleTargets.filter((t) => !skipped.has(t.id)).map((t) => ({ kind: 'bundle', t }) as const),
  ];
  const results = await runRounds(items, config.rounds, async (item, round, position) => {
    const head = `round ${round + 1}/${config.rounds}  ${item.t.id.padEnd(36)}`;
    try {
      if (item.kind === 'bundle') {
        const s = await bundleOnce(item.t, round);
        log(`${head} ${KiB(s.rawBytes).toFixed(1)} KiB, gzip ${KiB(s.gzipBytes).toFixed(1)} KiB`);
        return s;
      }
      const s = await storageOnce(item.t, config, round, position);
      log(
        `${head} per 1,000 calls: ${s.readsPer1k.toFixed(1)} reads, ${s.writesPer1k.toFixed(1)} writes (${s.calls} calls)`,
      );
      return s;
    } catch (error) {
      log(`${head} ${messageOf(error)}`);
      throw error;
    }
  });
  const runsOf = (id: string) => [...results].find(([item]) => item.t.id === id)?.[1] ?? [];
  const errorsOf = (id: string) =>
    runsOf(id).flatMap((r) => (r.error ? [`round ${r.round + 1}: ${r.error}`] : []));
  const skip = (id: string) => (skipped.has(id) ? { skipped: skipped.get(id) } : {});
  const storage: StorageRow[] = storageTargets.map((t) => {
    const samples = runsOf(t.id).flatMap((r) => (r.result ? [r.result as StorageSample] : []));
    const of = (pick: (s: StorageSample) => number) => spread(samples.map(pick));
    return {
      id: t.id,
      label: t.label,
      library: t.library,
      samples,
      readsPer1k: of((s) => s.readsPer1k),
      writesPer1k: of((s) => s.writesPer1k),
      rowsReadPer1k: of((s) => s.rowsReadPer1k),
      rowsWrittenPer1k: of((s) => s.rowsWrittenPer1k),
      errors: errorsOf(t.id),
      ...skip(t.id),
    };
  });
  const bundles: BundleRow[] = bundleTargets.map((t) => {
    const samples = runsOf(t.id).flatMap((r) => (r.result ? [r.result as BundleSample] : []));
    const of = (pick: (s: BundleSample) => number) => spread(samples.map((s) => KiB(pick(s))));
    return {
      id: t.id,
      label: t.label,
      library: t.library,
      samples,
      rawKiB: of((s) => s.rawBytes),
      gzipKiB: of((s) => s.gzipBytes),
      schemaKiB: of((s) => s.schemaBytes),
      errors: errorsOf(t.id),
      ...skip(t.id),
    };
  });
  return { storage, bundles };
}
