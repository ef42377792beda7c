/**
 * The scripts name keys in Lua (the ending of a session touches keys of other sessions); those
 * names must be the ones `RedisKeys` gives, or a script would write beside the data.
 */
import { expect, test } from 'vitest';
import { LUA_KEYS, RedisKeys } from '../src/keys.ts';
import { context, useRedis } from './helpers.ts';

const redis = useRedis();

test('the Lua key functions name the keys RedisKeys names', async () => {
  const { connection } = await context(redis().url);
  const lua = `${LUA_KEYS}return { session_key(ARGV[1], ARGV[2]), events_key(ARGV[1], ARGV[2]),
  gone_key(ARGV[1], ARGV[2]), index_key(ARGV[1]), principal_key(ARGV[1], 'alice'), broadcast_channel(ARGV[1]),
  instance_channel(ARGV[1], ARGV[3]) }`;
  const keys = new RedisKeys('lua-ns');
  const named = await connection.command(['EVAL', lua, '0', 'lua-ns', 'S-1', 'k3x9q0ab1z']);
  expect(named).toEqual([
    keys.session('S-1'),
    keys.events('S-1'),
    keys.gone('S-1'),
    keys.sessions,
    keys.principalSessions('alice'),
    keys.broadcast,
    keys.channel('k3x9q0ab1z'),
  ]);
});
