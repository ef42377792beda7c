/** The start of an instance's connections to Redis. */
import { createClient, RESP_TYPES } from '@redis/client';
import {
  checkDenoPermissions,
  clientConfig,
  evictionWarning,
  maskUrl,
  redisVersion,
  versionAtLeast,
} from './client-config.ts';
import { REDIS_DEFAULTS } from './options.ts';
import type { ConnectionOptions, RedisArg, RedisReply } from './redis-types.ts';
import { RedisUnavailableError } from './redis-types.ts';

export type Client = ReturnType<typeof createClient>;
const ARRAYS = { [RESP_TYPES.MAP]: Array } as Record<number, unknown>;

/**
 * Opens both connections within `connectTimeoutMs` (no retry before the first success), checks
 * the server's version and eviction policy, loads the scripts; `make` wraps the two clients.
 */
/** What `openConnection` asks of the connection it makes (RedisConnection has these). */
interface Opened {
  command(args: readonly RedisArg[]): Promise<RedisReply>;
  loadScripts(): Promise<void>;
}

export async function openConnection<C extends Opened>(
  options: ConnectionOptions,
  make: (url: string, commands: Client, subscriber: Client) => C,
): Promise<C> {
  checkDenoPermissions();
  const url = maskUrl(options.url);
  const timeouts = {
    connectTimeoutMs: options.connectTimeoutMs ?? REDIS_DEFAULTS.connectTimeoutMs,
    socketTimeoutMs: options.socketTimeoutMs ?? REDIS_DEFAULTS.socketTimeoutMs,
  };
  let established = false;
  const config = clientConfig(options.url, timeouts, () => established, ARRAYS, options.name);
  const commands = createClient(config as Parameters<typeof createClient>[0]) as Client;
  const subscriber = commands.duplicate(
    options.name === undefined ? {} : { name: `${options.name}:sub` },
  ) as Client;
  const failures: Error[] = [];
  for (const client of [commands, subscriber])
    client.on('error', (error: Error) => {
      if (!established) failures.push(error);
    });
  const destroy = () => {
    for (const client of [commands, subscriber]) if (client.isOpen) client.destroy();
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`timed out after ${timeouts.connectTimeoutMs} ms`)),
        timeouts.connectTimeoutMs,
      );
    });
    const connecting = Promise.all([commands.connect(), subscriber.connect()]);
    connecting.catch(() => {});
    await Promise.race([connecting, timedOut]);
  } catch (error) {
    destroy();
    const cause = failures[0] ?? (error as Error);
    const code = (cause as { code?: string }).code;
    throw new RedisUnavailableError(
      `Could not connect to Redis at ${url} (${code ?? cause.message})`,
      { cause },
    );
  } finally {
    clearTimeout(timer);
  }
  const connection = make(url, commands, subscriber);
  try {
    const version = redisVersion(String(await connection.command(['INFO', 'server']))) ?? '?';
    if (!versionAtLeast(version))
      throw new RedisUnavailableError(
        `Redis at ${url} is version ${version}; @edge-mcp/redis needs Redis 6.2 or later`,
      );
    await connection.loadScripts();
  } catch (error) {
    destroy();
    throw error;
  }
  try {
    const reply = await connection.command(['CONFIG', 'GET', 'maxmemory-policy']);
    const warning = evictionWarning(Array.isArray(reply) ? (reply[1] as string) : undefined);
    if (warning) options.onError?.(warning, 'config');
  } catch {
    // CONFIG is often disabled on managed Redis: nothing to check then.
  }
  established = true;
  return connection;
}
