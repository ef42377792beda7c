/**
 * The task store's scripts. A task is the hash `<ns>:{t:<id>}` (`TASK_FIELDS`: the
 * record JSON, its version, status, runner and binding) with `PEXPIREAT` at its `expiresAt`, plus
 * one field `w:<tag>` per instance that watches it. The record's merge stays in JavaScript (Redis's
 * cjson cannot tell `[]` from `{}`); the scripts compare versions, keep the indexes and tell the
 * instances that care (the runner, the watchers, a legacy session's standalone home) that a task
 * changed, in the same script as the write.
 */
import { SESSION_FIELDS, TASK_FIELDS } from '../keys.ts';
import { defineScript, type RedisScript } from '../scripts.ts';

const { record: R, version: VER, status: ST, runner: RN, binding: B } = TASK_FIELDS;
const WATCHER_FIELD = TASK_FIELDS.watcher;
const TERMINAL = `local function terminal(st) return st == 'completed' or st == 'failed' or st == 'cancelled' end`;

/**
 * Tells `tag` (once per script run, never the writer) that a task changed; returns the receivers.
 * `sent` is the set of tags already told. Sharded, an instance's channel is another slot: the tag
 * is kept in `told` (returned by the script, told by the caller) and taken to have listened.
 */
const tellOf = (sharded: boolean) => `local told = {}
local function tell(sent, channel, tag, message)
  if not tag or sent[tag] then return -1 end
  sent[tag] = true
  ${sharded ? 'told[#told + 1] = tag; return 1' : "return redis.call('PUBLISH', channel .. tag, message)"}
end`;

/**
 * Creates a task, unless its id exists: the record, version 1, the binding's list and active
 * set, the expiry index (member `<id> <binding>`), and a notice to the home of its legacy
 * session's standalone stream (2025-11-25 status notifications go out there).
 * KEYS: task, binding's list, binding's active set, expiry index, session hash (or the task),
 * the partition's held tasks (id → runner, for the lease sweep).
 * ARGV: JSON, status, runner, binding, createdAt, expiresAt, id, terminal (1/0), channel prefix,
 * message, has session (1/0), the binding's most unfinished tasks ('' for no limit), the most
 * tasks it keeps, task key prefix, task key suffix.
 * At the most it keeps, ids whose record expired leave its list, then its own oldest finished
 * task is deleted (of the 64 oldest it has; never another binding's).
 * Returns 1 when created, 0 when the binding has its most unfinished tasks already, 2 when it
 * keeps its most tasks and none of the oldest has finished.
 */
const create = (sharded: boolean) => `${tellOf(sharded)}
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.error_reply('ERR task ' .. ARGV[7] .. ' exists') end
if ARGV[12] ~= '' and redis.call('SCARD', KEYS[3]) >= tonumber(ARGV[12]) then return ${sharded ? '{ 0 }' : '0'} end
local keep = tonumber(ARGV[13])
if redis.call('ZCARD', KEYS[2]) >= keep then
  local finished = nil
  for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, 63)) do
    if redis.call('EXISTS', ARGV[14] .. id .. ARGV[15]) == 0 then
      redis.call('ZREM', KEYS[2], id)
      redis.call('SREM', KEYS[3], id)
    elseif not finished and redis.call('SISMEMBER', KEYS[3], id) == 0 then
      finished = id
    end
  end
  if redis.call('ZCARD', KEYS[2]) >= keep then
    if not finished then return ${sharded ? '{ 2 }' : '2'} end
    redis.call('DEL', ARGV[14] .. finished .. ARGV[15])
    redis.call('HDEL', KEYS[6], finished)
    redis.call('ZREM', KEYS[2], finished)
    redis.call('ZREM', KEYS[4], finished .. ' ' .. ARGV[4])
  end
end
redis.call('HSET', KEYS[1], '${R}', ARGV[1], '${VER}', 1, '${ST}', ARGV[2], '${RN}', ARGV[3], '${B}', ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[7])
if ARGV[8] == '0' then
  redis.call('SADD', KEYS[3], ARGV[7])
  redis.call('HSET', KEYS[6], ARGV[7], ARGV[3])
end
redis.call('ZADD', KEYS[4], ARGV[6], ARGV[7] .. ' ' .. ARGV[4])
if ARGV[11] == '1' then
  tell({[ARGV[3]] = true}, ARGV[9], redis.call('HGET', KEYS[5], '${SESSION_FIELDS.home}'), ARGV[10])
end
return ${sharded ? '{ 1, unpack(told) }' : '1'}`;

/**
 * Reads a task: its JSON, version, and whether its runner lives (1 when terminal or when the
 * reader is the runner). With `watch` = 1 and an unfinished task of a live runner, the reader
 * becomes a watcher (`w:<tag>`): the task's later changes are sent to it.
 * KEYS: task. ARGV: reader's tag, instance key prefix, watch (1/0).
 * Returns nil (unknown or expired) or {json, version, alive}; sharded, alive is -1 for another's
 * unfinished task (its liveness key is another slot: the caller asks).
 */
const get = (sharded: boolean) => `${TERMINAL}
local f = redis.call('HMGET', KEYS[1], '${R}', '${VER}', '${ST}', '${RN}')
if not f[1] then return nil end
if terminal(f[3]) or f[4] == ARGV[1] then return {f[1], tonumber(f[2]), 1} end
local alive = ${sharded ? '-1' : "redis.call('EXISTS', ARGV[2] .. f[4])"}
if ARGV[3] == '1' and alive ~= 0 then redis.call('HSET', KEYS[1], '${WATCHER_FIELD}' .. ARGV[1], 1) end
return {f[1], tonumber(f[2]), alive}`;

/**
 * Compare-and-set: writes the record only if its version is still the expected one and its status
 * is not terminal (a terminal task never changes: the first terminal write wins, a cancel stays a
 * cancel). On a write: version + 1, the status, out of the binding's active set once terminal,
 * and the change told to the runner, the watchers and the legacy session's home, never to the
 * writer. A watcher that no longer listens and whose liveness key is gone is dropped. The runner
 * the write names (a claim, a let-go: '') is kept in the task and the partition's held tasks,
 * which a terminal task leaves; the runner it replaces is told.
 * KEYS: task, binding's active set, session hash (or the task), the partition's held tasks.
 * ARGV: expected version, JSON, status, terminal (1/0), writer's tag, channel prefix, instance key
 * prefix, message, id, has session (1/0), runner.
 * Returns {0} unknown, {1, version, json} terminal (unchanged), {2, version, json} another
 * version (unchanged), {3, version} written.
 */
const cas = (sharded: boolean) => `${TERMINAL}
${tellOf(sharded)}
local f = redis.call('HMGET', KEYS[1], '${VER}', '${ST}', '${RN}', '${R}')
if not f[1] then return {0} end
if terminal(f[2]) then return {1, tonumber(f[1]), f[4]} end
if f[1] ~= ARGV[1] then return {2, tonumber(f[1]), f[4]} end
local version = redis.call('HINCRBY', KEYS[1], '${VER}', 1)
redis.call('HSET', KEYS[1], '${R}', ARGV[2], '${ST}', ARGV[3], '${RN}', ARGV[11])
if ARGV[4] == '1' then redis.call('HDEL', KEYS[4], ARGV[9]) else redis.call('HSET', KEYS[4], ARGV[9], ARGV[11]) end
local sent = {[ARGV[5]] = true}
tell(sent, ARGV[6], f[3], ARGV[8])
local watchers = {}
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, ${WATCHER_FIELD.length}) == '${WATCHER_FIELD}' then
    local tag = string.sub(field, ${WATCHER_FIELD.length + 1})
    if tell(sent, ARGV[6], tag, ARGV[8]) == 0 and ${sharded ? 'false' : "redis.call('EXISTS', ARGV[7] .. tag) == 0"} then
      redis.call('HDEL', KEYS[1], field)
    elseif ARGV[4] == '1' then
      watchers[#watchers + 1] = field
    end
  end
end
if ARGV[10] == '1' then tell(sent, ARGV[6], redis.call('HGET', KEYS[3], '${SESSION_FIELDS.home}'), ARGV[8]) end
if ARGV[4] == '1' then
  redis.call('SREM', KEYS[2], ARGV[9])
  -- Nothing changes a terminal task again: its watchers have heard the last of it.
  if #watchers > 0 then redis.call('HDEL', KEYS[1], unpack(watchers)) end
end
return {3, version${sharded ? ', unpack(told)' : ''}}`;

/**
 * One page of a binding's tasks, newest first: after the task `cursor id` (by its rank, or below
 * its `createdAt` if it is gone), `limit + 1` records at most (one more tells that a next page
 * exists). Ids whose task expired are dropped from the list on the way.
 * KEYS: binding's list. ARGV: task key prefix, task key suffix, limit, cursor createdAt ('' for
 * the first page), cursor id.
 */
const LIST = `local limit = tonumber(ARGV[3])
local start = 0
if ARGV[4] ~= '' then
  local rank = redis.call('ZREVRANK', KEYS[1], ARGV[5])
  if rank then
    start = rank + 1
  else
    local older = redis.call('ZREVRANGEBYSCORE', KEYS[1], '(' .. ARGV[4], '-inf', 'LIMIT', 0, 1)
    if #older == 0 then return {} end
    start = redis.call('ZREVRANK', KEYS[1], older[1])
  end
end
local out = {}
while #out <= limit do
  local batch = redis.call('ZREVRANGE', KEYS[1], start, start + limit)
  if #batch == 0 then break end
  local dropped = 0
  for _, id in ipairs(batch) do
    if #out > limit then break end
    local json = redis.call('HGET', ARGV[1] .. id .. ARGV[2], '${R}')
    if json then
      out[#out + 1] = json
    else
      redis.call('ZREM', KEYS[1], id)
      dropped = dropped + 1
    end
  end
  start = start + #batch - dropped
end
return out`;

/**
 * Unfinished tasks of a binding whose runner lives (a dead runner's task is answered `failed`
 * when read, so it does not hold the binding's budget). Ids whose task expired or ended are
 * dropped from the set on the way.
 * KEYS: binding's active set. ARGV: task key prefix, task key suffix, instance key prefix.
 * Sharded, the runner of each unfinished task instead (the caller counts the live ones).
 */
const count = (sharded: boolean) => `${TERMINAL}
local count = 0
local runners = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local f = redis.call('HMGET', ARGV[1] .. id .. ARGV[2], '${ST}', '${RN}')
  if not f[1] or terminal(f[1]) then
    redis.call('SREM', KEYS[1], id)
  elseif ${sharded ? 'true' : "redis.call('EXISTS', ARGV[3] .. f[2]) == 1"} then
    count = count + 1
    runners[#runners + 1] = f[2]
  end
end
return ${sharded ? 'runners' : 'count'}`;

/**
 * The sweep (each instance's heartbeat): takes up to `batch` tasks past their `expiresAt` (Redis
 * time) off the expiry index and their binding's list and active set; the hash itself expired by
 * its `PEXPIREAT` (deleted here too, should it linger). Returns how many it took.
 * KEYS: expiry index, held tasks. ARGV: task key prefix, task key suffix, list key prefix, active
 * set key prefix, batch.
 */
const SWEEP = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[5]))
for _, member in ipairs(due) do
  local space = string.find(member, ' ', 1, true)
  local id = string.sub(member, 1, space - 1)
  local binding = string.sub(member, space + 1)
  redis.call('DEL', ARGV[1] .. id .. ARGV[2])
  redis.call('ZREM', ARGV[3] .. binding, id)
  redis.call('SREM', ARGV[4] .. binding, id)
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[1], member)
end
return #due`;

/**
 * The lease sweep of one partition: its unfinished tasks that have no live runner, queued ones
 * ('' runner) and those of a runner whose liveness key is gone (one primary) or that the caller
 * names dead (sharded: liveness keys are other slots, so the caller asks). Also the distinct
 * runners met, for the caller to ask about.
 * KEYS: held tasks. ARGV: instance key prefix, check liveness here (1/0), batch, dead tags….
 * Returns {orphan ids (at most batch), runners}.
 */
const HELD = `local dead = {}
for i = 4, #ARGV do dead[ARGV[i]] = true end
local batch = tonumber(ARGV[3])
local orphans, runners, seen = {}, {}, {}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local id, runner = all[i], all[i + 1]
  if runner ~= '' and seen[runner] == nil then
    seen[runner] = dead[runner] == true or (ARGV[2] == '1' and redis.call('EXISTS', ARGV[1] .. runner) == 0)
    runners[#runners + 1] = runner
  end
  if #orphans < batch and (runner == '' or seen[runner]) then orphans[#orphans + 1] = id end
end
return {orphans, runners}`;

/** The task scripts of one layout. */
export interface TaskScripts {
  readonly create: RedisScript;
  readonly get: RedisScript;
  readonly cas: RedisScript;
  readonly list: RedisScript;
  readonly count: RedisScript;
  readonly sweep: RedisScript;
  readonly held: RedisScript;
}

function scripts(sharded: boolean): TaskScripts {
  const name = (base: string) => (sharded ? `sharded-task-${base}` : `task-${base}`);
  return {
    create: defineScript(name('create'), 6, create(sharded)),
    get: defineScript(name('get'), 1, get(sharded)),
    cas: defineScript(name('cas'), 4, cas(sharded)),
    list: defineScript(name('list'), 1, LIST),
    count: defineScript(name('count'), 1, count(sharded)),
    sweep: defineScript(name('sweep'), 2, SWEEP),
    held: defineScript(name('held'), 1, HELD),
  };
}

const SINGLE = scripts(false);
const SHARDED = scripts(true);

/** The task scripts of a layout (`keys.sharded`). */
export function taskScripts(keys: { readonly sharded: boolean }): TaskScripts {
  return keys.sharded ? SHARDED : SINGLE;
}
