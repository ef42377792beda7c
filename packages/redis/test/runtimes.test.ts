/**
 * The package runs unchanged on Deno and Bun: the real binaries (npm:deno, npm:bun) run
 * fixtures/bus-child.ts, which joins the same Redis as this Node process, and the two talk on
 * the bus both ways. A killed child is seen at once (0 receivers) while its liveness key lives.
 */
import { join } from 'node:path';
import type { ClusterEvent } from '@edge-mcp/core/cluster';
import { denoBinary, startChild } from '@edge-mcp/test-kit/node';
import { describe, expect, test } from 'vitest';
import type { BusEnvelope } from '../src/bus-messages.ts';
import { context, namespace, until, useRedis } from './helpers.ts';
import { PACKAGE_DIR, RUNTIMES } from './support/child.ts';

/** The fixture under `command`, in this package, with `env` (the test kit's `startChild`). */
const start = (command: string, args: string[], env: Record<string, string>) =>
  startChild(command, args, { cwd: PACKAGE_DIR, env });

const FIXTURE = join(import.meta.dirname, 'fixtures', 'bus-child.ts');
const redis = useRedis();

describe.each(RUNTIMES)('connection and bus on %s', (runtime, command) => {
  test('joins the cluster; messages flow both ways; a clean close deletes its liveness key', async () => {
    const ns = namespace();
    const node = await context(redis().url, { namespace: ns });
    const events: ClusterEvent[] = [];
    node.bus.bind({ deliver: (event) => events.push(event) });
    const answers: BusEnvelope[] = [];
    node.bus.on('resp', (message) => answers.push(message));
    const [binary, args] = command(FIXTURE);
    const child = start(binary, args, { REDIS_URL: redis().url, REDIS_NAMESPACE: ns });
    const [, tag, reported] = (await child.line('ready ')).split(' ');
    expect(reported).toBe(runtime);
    expect(await node.instance.alive(tag as string)).toBe(true);
    // Its publish on start reached this instance.
    await until(() => events.length === 1, 'the child event');
    expect(events).toEqual([{ kind: 'list-changed', list: 'tools' }]);
    // A targeted message to it, and its targeted answer back (through the inbox script).
    expect(await node.bus.send(tag as string, { k: 'cancel', s: 'S1', r: 'req-1' })).toBe(1);
    await until(() => answers.length === 1, 'the answer');
    expect(answers[0]).toMatchObject({
      o: tag,
      k: 'resp',
      s: 'S1',
      id: 'req-1',
      result: { runtime, tag },
    });
    // An event raised here reaches it.
    node.bus.publish({ kind: 'resource-updated', uri: 'file:///x' });
    expect(await child.line('event ')).toBe('event {"kind":"resource-updated","uri":"file:///x"}');
    // closeAll: it stops its heartbeat, deletes its liveness key and quits both connections.
    await node.bus.broadcast({ k: 'closeAll', reason: 'shutdown' });
    expect((await child.exited).code).toBe(0);
    expect(await node.instance.alive(tag as string)).toBe(false);
    expect(child.stderr()).not.toContain('error');
  });

  test('SIGKILLed: 0 receivers at once, while its liveness key still says alive', async () => {
    const ns = namespace();
    const node = await context(redis().url, { namespace: ns });
    const [binary, args] = command(FIXTURE);
    const child = start(binary, args, { REDIS_URL: redis().url, REDIS_NAMESPACE: ns });
    const tag = (await child.line('ready ')).split(' ')[1] as string;
    child.child.kill('SIGKILL');
    await child.exited;
    const killed = Date.now();
    await until(
      async () => (await node.bus.send(tag, { k: 'cancel', s: 'S', r: 1 })) === 0,
      '0 receivers',
      2000,
    );
    expect(Date.now() - killed).toBeLessThan(1000);
    expect(await node.instance.alive(tag)).toBe(true);
    expect(await node.bus.deliver(tag, { k: 'resp', s: 'S', id: 1, result: {} })).toBe('inboxed');
  });
});

describe('Deno permissions', () => {
  test('without env access to the two node-redis variables: a clear error, no hang', async () => {
    const child = start(
      denoBinary(PACKAGE_DIR),
      ['run', '--allow-net=127.0.0.1', '--allow-env=REDIS_URL,REDIS_NAMESPACE', FIXTURE],
      { REDIS_URL: redis().url, REDIS_NAMESPACE: namespace() },
    );
    expect((await child.exited).code).toBe(1);
    expect(child.stderr()).toContain(
      'start failed: Error: @edge-mcp/redis on Deno needs env access to REDIS_DEBUG_MAINTENANCE and REDIS_EMIT_DIAGNOSTICS',
    );
    expect(child.stderr()).toContain('--allow-env=REDIS_DEBUG_MAINTENANCE,REDIS_EMIT_DIAGNOSTICS');
  });
});
