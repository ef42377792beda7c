/**
 * `pnpm bench --quick` on a small subset (edge-mcp and its baselines on Node, every measure):
 * checks that the bench still runs — targets start, answer and stop, the outputs are written —
 * never the figures.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import type { Report } from '../src/report/write.ts';

test('the quick mode runs every measure and writes its outputs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'edge-mcp-bench-smoke-'));
  try {
    const out = join(dir, 'smoke.json');
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/run.ts', '--quick'], {
      cwd: join(import.meta.dirname, '..'),
      env: {
        ...process.env,
        BENCH_OUT: out,
        BENCH_RUNTIMES: 'node',
        BENCH_TARGETS: 'node/edge-mcp',
      },
      encoding: 'utf8',
      timeout: 170_000,
    });
    expect(run.status, `${run.stderr}\n${run.stdout}`).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8')) as Report;
    expect(report.config.partial).toBe(true);
    expect(report.load?.start).toHaveLength(3);
    const { throughput, startup, sessions, disconnect, shutdown } = report.results;
    expect(throughput.map((row) => row.id)).toEqual([
      'node/bare',
      'node/edge-mcp/modern',
      'node/edge-mcp/legacy-session',
    ]);
    expect(startup.map((row) => row.id)).toEqual(['node/bare', 'node/edge-mcp']);
    expect(sessions.map((row) => row.id)).toEqual(['node/bare-initialize', 'node/edge-mcp']);
    expect(disconnect.map((row) => row.id)).toEqual(['node/edge-mcp']);
    expect(shutdown.map((row) => row.id)).toEqual(['node/edge-mcp']);
    for (const row of [...throughput, ...startup, ...sessions, ...disconnect, ...shutdown]) {
      expect(row.errors, row.id).toEqual([]);
      expect(row.samples.length, row.id).toBeGreaterThan(0);
    }
    expect(readFileSync(join(dir, 'partial.svg'), 'utf8')).toContain('</svg>');
    expect(run.stdout).toContain('**Targets**');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
