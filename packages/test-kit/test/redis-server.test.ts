import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { pingRedis, type RedisServer, startRedis } from '../src/redis-server.ts';

/** Parses one RESP2 reply at `at`: [value, next offset], or undefined while incomplete. */
function parse(text: string, at = 0): [unknown, number] | undefined {
  const eol = text.indexOf('\r\n', at);
  if (eol === -1) return undefined;
  const head = text.slice(at + 1, eol);
  switch (text[at]) {
    case '+':
    case ':':
      return [head, eol + 2];
    case '-':
      return [new Error(head), eol + 2];
    case '$': {
      const length = Number(head);
      if (length === -1) return [null, eol + 2];
      if (text.length < eol + 2 + length + 2) return undefined;
      return [text.slice(eol + 2, eol + 2 + length), eol + 2 + length + 2];
    }
    case '*': {
      const items: unknown[] = [];
      let next = eol + 2;
      for (let i = 0; i < Number(head); i++) {
        const item = parse(text, next);
        if (!item) return undefined;
        items.push(item[0]);
        next = item[1];
      }
      return [items, next];
    }
    default:
      throw new Error(`not RESP: ${text}`);
  }
}

/** One inline command on a fresh connection; resolves with its parsed reply. */
function command(port: number, line: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('error', reject);
    socket.on('connect', () => socket.write(`${line}\r\n`));
    socket.on('data', (chunk) => {
      text += chunk.toString();
      const reply = parse(text);
      if (reply) {
        socket.destroy();
        resolve(reply[0]);
      }
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const servers: RedisServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

async function start(options: Parameters<typeof startRedis>[0] = {}): Promise<RedisServer> {
  const server = await startRedis(options);
  servers.push(server);
  return server;
}

describe('startRedis', () => {
  test('answers PING on a loopback port with its own directory; stop() ends it and removes the directory', async () => {
    const redis = await start();
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
    expect(await pingRedis(redis.port)).toBe(true);
    expect(existsSync(redis.dir)).toBe(true);
    expect(await command(redis.port, 'CONFIG GET dir')).toEqual(['dir', redis.dir]);
    expect(await command(redis.port, 'CONFIG GET bind')).toEqual(['bind', '127.0.0.1']);
    expect(await command(redis.port, 'CONFIG GET save')).toEqual(['save', '']);
    expect(await command(redis.port, 'CONFIG GET appendonly')).toEqual(['appendonly', 'no']);
    const pid = redis.pid;
    await redis.stop();
    expect(alive(pid)).toBe(false);
    expect(existsSync(redis.dir)).toBe(false);
    await redis.stop(); // twice is fine
  });

  test('persist: restart() keeps the data (same port, same directory, a new pid)', async () => {
    const redis = await start({ persist: true });
    expect(await command(redis.port, 'SET kept yes')).toBe('OK');
    const pid = redis.pid;
    await redis.restart();
    expect(redis.pid).not.toBe(pid);
    expect(alive(pid)).toBe(false);
    expect(await command(redis.port, 'GET kept')).toBe('yes');
  });

  test('without persist (--save "" and no AOF) a restart starts empty', async () => {
    const redis = await start();
    expect(await command(redis.port, 'SET lost yes')).toBe('OK');
    await redis.restart();
    expect(await command(redis.port, 'GET lost')).toBeNull();
  });

  test('kill() is a crash; start() brings it back', async () => {
    const redis = await start({ persist: true });
    const pid = redis.pid;
    await redis.kill();
    expect(alive(pid)).toBe(false);
    expect(await pingRedis(redis.port, 200)).toBe(false);
    await redis.start();
    expect(await pingRedis(redis.port)).toBe(true);
  });

  test('pause() makes it silent, resume() answers again; stop() ends a paused server', async () => {
    const redis = await start();
    redis.pause();
    expect(await pingRedis(redis.port, 300)).toBe(false);
    redis.resume();
    expect(await pingRedis(redis.port)).toBe(true);
    redis.pause();
    const pid = redis.pid;
    await redis.stop();
    expect(alive(pid)).toBe(false);
  });

  test('extra arguments reach the server', async () => {
    const redis = await start({ args: ['--maxmemory-policy', 'allkeys-lru'] });
    expect(await command(redis.port, 'CONFIG GET maxmemory-policy')).toEqual([
      'maxmemory-policy',
      'allkeys-lru',
    ]);
  });

  test('a missing binary fails with how to install it', async () => {
    await expect(startRedis({ binary: '/nonexistent/redis-server' })).rejects.toThrow(
      /install redis-server/,
    );
  });
});
