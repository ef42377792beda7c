/** The event store's scripts: one Redis stream per session, entry ids `<seq>-0`. */
import { EVENT_FIELDS, SESSION_FIELDS } from '../keys.ts';
import { defineScript } from '../scripts.ts';

const { stream: S, message: M, final: F } = EVENT_FIELDS;
const { eventSeq: SEQ, eventBytes: BYTES, request: REQUEST } = SESSION_FIELDS;

/**
 * Stores one event. Nothing is stored for a session that ended (nil). The sequence is one counter
 * per session (`e#`), so ids increase within each stream. Bounded by count (a tenth of the bound
 * goes at once, oldest first) and by UTF-8 bytes (oldest first, the newest always kept). The
 * request a stream answers is kept until its final message; a second final for a stream whose
 * request is no longer open (an orphan's error written by two instances, a holder thought gone)
 * is not stored: the id of the stream's first final is returned instead.
 * KEYS: session hash, events. ARGV: stream, message, max events, max bytes, final ('1'),
 * request id (JSON, '' for none). Returns the event's sequence number.
 */
export const APPEND = defineScript(
  'events-append',
  2,
  `if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local stream, message, final = ARGV[1], ARGV[2], ARGV[5] == '1'
local open = '${REQUEST}' .. stream
if final and redis.call('HEXISTS', KEYS[1], open) == 0 then
  for _, entry in ipairs(redis.call('XREVRANGE', KEYS[2], '+', '-')) do
    local fields, s, f = entry[2], nil, nil
    for j = 1, #fields, 2 do
      if fields[j] == '${S}' then s = fields[j + 1] elseif fields[j] == '${F}' then f = fields[j + 1] end
    end
    if s == stream and f == '1' then
      return tonumber(string.match(entry[1], '^(%d+)'))
    end
  end
end
local seq = redis.call('HINCRBY', KEYS[1], '${SEQ}', 1)
if final then
  redis.call('XADD', KEYS[2], seq .. '-0', '${S}', stream, '${M}', message, '${F}', '1')
  redis.call('HDEL', KEYS[1], open)
else
  redis.call('XADD', KEYS[2], seq .. '-0', '${S}', stream, '${M}', message)
  if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], open, ARGV[6]) end
end
local bytes = redis.call('HINCRBY', KEYS[1], '${BYTES}', #message)
local max, maxBytes = tonumber(ARGV[3]), tonumber(ARGV[4])
local len = redis.call('XLEN', KEYS[2])
if len > max or bytes > maxBytes then
  local batch = math.max(1, math.floor(max / 10))
  while len > 1 and (len > max or bytes > maxBytes) do
    local n = 1
    if len > max then n = math.min(batch, len - 1) end
    for _, entry in ipairs(redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', n)) do
      local fields = entry[2]
      for j = 1, #fields, 2 do
        if fields[j] == '${M}' then bytes = bytes - #fields[j + 1] end
      end
      redis.call('XDEL', KEYS[2], entry[1])
      len = len - 1
    end
  end
  redis.call('HSET', KEYS[1], '${BYTES}', bytes)
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return seq`,
);

/**
 * The events of one stream after a sequence number, filtered here (only that stream's events
 * cross the network), up to and including its first final message.
 * KEYS: session hash, events. ARGV: stream, after (sequence). Returns `{finished (0|1), request id
 * JSON ('' when none or finished), seq, message, seq, message, …}`.
 */
export const REPLAY = defineScript(
  'events-replay',
  2,
  `local stream = ARGV[1]
local out = { 0, '' }
for _, entry in ipairs(redis.call('XRANGE', KEYS[2], '(' .. ARGV[2] .. '-0', '+')) do
  local fields, s, m, f = entry[2], nil, nil, nil
  for j = 1, #fields, 2 do
    local name = fields[j]
    if name == '${S}' then s = fields[j + 1] elseif name == '${M}' then m = fields[j + 1]
    elseif name == '${F}' then f = fields[j + 1] end
  end
  if s == stream then
    out[#out + 1] = tonumber(string.match(entry[1], '^(%d+)'))
    out[#out + 1] = m
    if f == '1' then
      out[1] = 1
      return out
    end
  end
end
out[2] = redis.call('HGET', KEYS[1], '${REQUEST}' .. stream) or ''
return out`,
);
