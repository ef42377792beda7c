/**
 * docs/deploying.md shows what the tests run: each proxy configuration block equals its file in
 * docs/deploying/ (the proxy matrix reads those files), and the Kubernetes manifest's probes are
 * the paths `serve()` answers, its drain fits in its grace period, and it sets only variables the
 * example reads.
 */
import { describe, expect, test } from 'vitest';
import { HEALTH_PATHS } from '../../packages/adapters/src/shared/health.ts';
import { fencedBlocks, read } from './markdown.ts';

const doc = read('docs/deploying.md');
const blocks = fencedBlocks(doc);

describe('docs/deploying.md', () => {
  const configs = blocks.flatMap((block) => {
    const file = /^<!-- config: (\S+) -->$/.exec(block.marker ?? '')?.[1];
    return file ? [[file, block.content] as const] : [];
  });

  test("shows the nginx and the HAProxy configuration, and HAProxy's error pages", () => {
    expect(configs.map(([file]) => file)).toEqual([
      'deploying/nginx.conf',
      'deploying/haproxy.cfg',
      'deploying/mcp-502.http',
      'deploying/mcp-503.http',
    ]);
  });

  test.each(configs)('the block of %s is the file the proxy matrix runs', (file, content) => {
    // The error pages are HTTP messages (CRLF line ends); the page shows them with LF.
    expect(content).toBe(read(`docs/${file}`).replaceAll('\r\n', '\n'));
  });

  const manifest = blocks.find((block) => block.marker === '<!-- manifest: kubernetes -->');
  const text = manifest?.content ?? '';
  const number = (pattern: RegExp): number => Number(pattern.exec(text)?.[1]);

  test('the Kubernetes probes are the paths serve() answers', () => {
    expect(/readinessProbe:\s+httpGet: \{ path: (\S+),/.exec(text)?.[1]).toBe(HEALTH_PATHS.ready);
    expect(/livenessProbe:\s+httpGet: \{ path: (\S+),/.exec(text)?.[1]).toBe(HEALTH_PATHS.live);
  });

  test('the pause before SIGTERM plus the drain fit in the grace period, with a margin', () => {
    const grace = number(/terminationGracePeriodSeconds: (\d+)/);
    const pause = number(/command: \["sleep", "(\d+)"\]/);
    const drain = number(/name: MCP_DRAIN_MS, value: "(\d+)"/) / 1000;
    expect(grace).toBeGreaterThan(0);
    expect(pause + drain + 2).toBeLessThanOrEqual(grace);
  });

  test('the manifest sets only variables the example reads', () => {
    const names = [...text.matchAll(/name: ([A-Z_]+), value:/g)].map((match) => match[1] as string);
    expect(names.length).toBeGreaterThan(3);
    const start = read('apps/server/src/start.ts') + read('apps/server/src/example/options.ts');
    for (const name of names) expect(start, name).toContain(`'${name}'`);
  });
});
