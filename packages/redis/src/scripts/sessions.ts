/**
 * The session manager's scripts, in the form of each key layout (`keys.ts`). Times are Redis's
 * (`TIME`), so instances with skewed clocks agree. Keys of sessions other than the one a script
 * is called for (the sweep, eviction, the heartbeat's refresh) are built in Lua from the
 * namespace: on one primary anywhere, sharded within the partition the script was called for
 * (a script touches one slot). Sharded, the caps are counted apart (`admission.ts`): the
 * scripts return the principal of each ended session for its admission sets, and a write that
 * must tell another instance returns its tag instead of publishing to it.
 */
import { luaKeys, SESSION_FIELDS, TOMBSTONE_TTL_MS } from '../keys.ts';
import { defineScript, type RedisScript } from '../scripts.ts';

const F = SESSION_FIELDS;

/**
 * Shared by the scripts that end sessions: `now_ms()`, and `end_session(ns, id, reason, tag,
 * quiet)`, which deletes a session's keys and index entry, sets its tombstone, publishes `closed`
 * (unless quiet) and returns `{reason, id, pv, ci, cc, ow, principal}` ('' for a missing field),
 * or nil when its record was already gone. Sharded, its principal's set is not touched here (it
 * is another slot) and `closed` goes to the partition's channel.
 */
const ending = (sharded: boolean) => `${luaKeys(sharded)}local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function end_session(ns, id, reason, tag, quiet)
  local s = session_key(ns, id)
  local ident = redis.call('HMGET', s, '${F.protocolVersion}', '${F.clientInfo}', '${F.capabilities}', '${F.owner}', '${F.principal}')
  redis.call('DEL', s, events_key(ns, id))
  redis.call('ZREM', index_key(ns, id), id)
  ${sharded ? '' : "if ident[5] then redis.call('SREM', principal_key(ns, ident[5]), id) end"}
  if not ident[1] then return nil end
  redis.call('SET', gone_key(ns, id), reason, 'PX', ${TOMBSTONE_TTL_MS})
  if not quiet then
    redis.call('${sharded ? 'SPUBLISH' : 'PUBLISH'}', broadcast_channel(ns, id),
      cjson.encode({ v = 1, o = tag, k = 'closed', s = id, reason = reason }))
  end
  return { reason, id, ident[1], ident[2] or '', ident[3] or '', ident[4] or '', ident[5] or '' }
end
-- The live sessions of a principal's set and the one with the oldest deadline (ids whose record
-- expired without a script are dropped from the set on the way).
local function own_sessions(ns, set)
  local ids = redis.call('SMEMBERS', set)
  local live, oldest, oldest_at = 0, nil, nil
  for from = 1, #ids, 500 do
    local to = math.min(from + 499, #ids)
    local scores = redis.call('ZMSCORE', index_key(ns, ''), unpack(ids, from, to))
    for i = from, to do
      local at = scores[i - from + 1]
      if at then
        live = live + 1
        at = tonumber(at)
        if oldest_at == nil or at < oldest_at then oldest, oldest_at = ids[i], at end
      else
        redis.call('SREM', set, ids[i])
      end
    end
  end
  return live, oldest, oldest_at
end
local function sweep(index, ns, tag, limit, now, ended)
  local due = redis.call('ZRANGEBYSCORE', index, '-inf', now, 'LIMIT', 0, limit)
  for _, id in ipairs(due) do
    local r = end_session(ns, id, 'session-expired', tag, false)
    if r then ended[#ended + 1] = r end
  end
end
`;

/**
 * `initialize`: sweeps up to 10 due sessions. A principal at its quota then evicts its own session
 * with the oldest deadline, else answers `quota`; otherwise, at the cap, the session with the
 * oldest deadline of anyone is evicted, else `full`. Only a session not touched for `evictMs` is
 * evicted (nothing in flight and no stream anywhere: busy sessions are refreshed every heartbeat).
 * Then the new record is stored and counted in its principal's set.
 * KEYS: index, the new session hash, the principal's set. ARGV: ns, id, max, deadline (idle +
 * heartbeat), backstop TTL, evictMs, tag, principal, max per principal, then field/value pairs.
 * Returns `{'ok' | 'full' | 'quota', ended…}`.
 */
const CREATE = `local ns, id, tag = ARGV[1], ARGV[2], ARGV[7]
local now = now_ms()
local busy_after = now + tonumber(ARGV[4]) - tonumber(ARGV[6])
local ended = {}
sweep(KEYS[1], ns, tag, 10, now, ended)
local victim
if redis.call('SCARD', KEYS[3]) >= tonumber(ARGV[9]) then
  local live, oldest, oldest_at = own_sessions(ns, KEYS[3])
  if live >= tonumber(ARGV[9]) then
    if oldest == nil or oldest_at >= busy_after then return { 'quota', unpack(ended) } end
    victim = oldest
  end
end
if victim == nil and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  if oldest[1] == nil or tonumber(oldest[2]) >= busy_after then return { 'full', unpack(ended) } end
  victim = oldest[1]
end
if victim then
  local r = end_session(ns, victim, 'session-evicted', tag, false)
  if r then ended[#ended + 1] = r end
end
redis.call('HSET', KEYS[2], '${F.version}', 1, '${F.created}', now, '${F.principal}', ARGV[8], unpack(ARGV, 10))
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), id)
redis.call('SADD', KEYS[3], id)
return { 'ok', unpack(ended) }`;

/**
 * The hot path, once per request: proves the session exists, pushes its deadline and backstop
 * TTL, and returns its version when the caller's replica has it, else the whole record.
 * KEYS: session hash, events, index, tombstone. ARGV: id, deadline, backstop TTL, known version.
 * Returns `{0, tombstone}` when gone, the version (unchanged), or `HGETALL`.
 */
const TOUCH = `if redis.call('EXISTS', KEYS[1]) == 0 then
  return { 0, redis.call('GET', KEYS[4]) or '' }
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[3], 'XX', 'GT', now + tonumber(ARGV[2]), ARGV[1])
local v = redis.call('HGET', KEYS[1], '${F.version}')
if v == ARGV[4] then return v end
return redis.call('HGETALL', KEYS[1])`;

/**
 * Field writes of one replica, coalesced: `H` sets, `D` deletes, `C` deletes every field with
 * the prefix; then the version goes up. A subscription changed while another instance homes the
 * standalone stream: that instance is told (`stale`), so its replica sees it for resource updates.
 * KEYS: session hash. ARGV: ns, id, tag, then op/field/value triples. Returns the new version, or
 * 0 when the session is gone (nothing is recreated).
 */
const write = (
  sharded: boolean,
) => `${luaKeys(sharded)}if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local subscriptions = false
for i = 4, #ARGV, 3 do
  local op, field = ARGV[i], ARGV[i + 1]
  if op == 'H' then
    redis.call('HSET', KEYS[1], field, ARGV[i + 2])
  elseif op == 'D' then
    redis.call('HDEL', KEYS[1], field)
  else
    for _, name in ipairs(redis.call('HKEYS', KEYS[1])) do
      if string.sub(name, 1, #field) == field then redis.call('HDEL', KEYS[1], name) end
    end
  end
  if string.sub(field, 1, ${F.subscription.length}) == '${F.subscription}' then subscriptions = true end
end
local v = redis.call('HINCRBY', KEYS[1], '${F.version}', 1)
if subscriptions then
  local home = redis.call('HGET', KEYS[1], '${F.home}')
  if home and home ~= ARGV[3] then
    ${
      sharded
        ? 'return { v, home }'
        : `redis.call('PUBLISH', instance_channel(ARGV[1], home),
      cjson.encode({ v = 1, o = ARGV[3], k = 'stale', s = ARGV[2] }))`
    }
  end
end
return v`;

/**
 * Ends one session (DELETE, the operator). KEYS: index. ARGV: ns, id, reason, tag, quiet ('1':
 * no `closed` message, `closeAll` sends one for all). Returns the ended record's identity
 * (`end_session`), or an empty array when it did not exist.
 */
const CLOSE = `return end_session(ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5] == '1') or {}`;

/**
 * The heartbeat's activity refresh: the deadline and backstop TTL of the sessions with a request
 * in flight or a connection on this instance are pushed; the ones that no longer exist are
 * returned with their tombstones. KEYS: index. ARGV: ns, deadline, backstop TTL, ids….
 * Returns `{id, tombstone, …}`.
 */
const refresh = (sharded: boolean) => `${luaKeys(sharded)}local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ns, gone = ARGV[1], {}
for i = 4, #ARGV do
  local id = ARGV[i]
  local s = session_key(ns, id)
  if redis.call('EXISTS', s) == 1 then
    redis.call('PEXPIRE', s, ARGV[3])
    redis.call('PEXPIRE', events_key(ns, id), ARGV[3])
    redis.call('ZADD', KEYS[1], 'XX', 'GT', now + tonumber(ARGV[2]), id)
  else
    gone[#gone + 1] = id
    gone[#gone + 1] = redis.call('GET', gone_key(ns, id)) or ''
  end
end
return gone`;

/**
 * The idle sweep: every session whose deadline passed ends (`session-expired`). Atomic, so two
 * instances sweeping at once end each session once. KEYS: index. ARGV: ns, tag, limit.
 * Returns the ended records' identities.
 */
const SWEEP = `local ended = {}
sweep(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]), now_ms(), ended)
return ended`;

/**
 * The standalone stream's home: this instance when there is none, when it is this one, or when
 * it is `expected` (a home found gone: compare-and-set). KEYS: session hash. ARGV: tag, expected.
 * Returns the home's tag, '' when the session is gone.
 */
const HOME = `if redis.call('EXISTS', KEYS[1]) == 0 then return '' end
local home = redis.call('HGET', KEYS[1], '${F.home}')
if (not home) or home == ARGV[1] or home == ARGV[2] then
  redis.call('HSET', KEYS[1], '${F.home}', ARGV[1])
  return ARGV[1]
end
return home`;

/**
 * Sharded, the create script stores the record in its partition (after sweeping up to 10 of its
 * due sessions); the caps were checked before it, in the admission sets (`admission.ts`).
 * KEYS: the partition's index, the new session hash. ARGV: as `CREATE`'s.
 */
const SHARDED_CREATE = `local ns, id, tag = ARGV[1], ARGV[2], ARGV[7]
local now = now_ms()
local ended = {}
sweep(KEYS[1], ns, tag, 10, now, ended)
redis.call('HSET', KEYS[2], '${F.version}', 1, '${F.created}', now, '${F.principal}', ARGV[8], unpack(ARGV, 10))
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), id)
return { 'ok', unpack(ended) }`;

/**
 * Sharded eviction at a cap: ends session `id` (`session-evicted`) if it was not touched for
 * `evictMs`. KEYS: its partition's index. ARGV: ns, id, deadline, evictMs, tag.
 * Returns its identity (`end_session`), or an empty array when it is busy or gone.
 */
const EVICT = `local ns, id = ARGV[1], ARGV[2]
local at = redis.call('ZSCORE', KEYS[1], id)
if not at or tonumber(at) >= now_ms() + tonumber(ARGV[3]) - tonumber(ARGV[4]) then return {} end
return end_session(ns, id, 'session-evicted', ARGV[5], false) or {}`;

/** The session scripts of one layout. */
export interface SessionScripts {
  readonly create: RedisScript;
  readonly touch: RedisScript;
  readonly write: RedisScript;
  readonly close: RedisScript;
  readonly refresh: RedisScript;
  readonly sweep: RedisScript;
  readonly home: RedisScript;
  /** Sharded only (one primary evicts inside `create`). */
  readonly evict: RedisScript;
}

function scripts(sharded: boolean): SessionScripts {
  const name = (base: string) => (sharded ? `sharded-session-${base}` : `session-${base}`);
  const end = ending(sharded);
  return {
    create: sharded
      ? defineScript(name('create'), 2, `${end}\n${SHARDED_CREATE}`)
      : defineScript(name('create'), 3, `${end}\n${CREATE}`),
    touch: defineScript(name('touch'), 4, TOUCH),
    write: defineScript(name('write'), 1, write(sharded)),
    close: defineScript(name('close'), 1, `${end}\n${CLOSE}`),
    refresh: defineScript(name('refresh'), 1, refresh(sharded)),
    sweep: defineScript(name('sweep'), 1, `${end}\n${SWEEP}`),
    home: defineScript(name('home'), 1, HOME),
    evict: defineScript(name('evict'), 1, `${end}\n${EVICT}`),
  };
}

const SINGLE = scripts(false);
const SHARDED = scripts(true);

/** The session scripts of a layout (`keys.sharded`). */
export function sessionScripts(keys: { readonly sharded: boolean }): SessionScripts {
  return keys.sharded ? SHARDED : SINGLE;
}
