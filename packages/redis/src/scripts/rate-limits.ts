/**
 * The rate-limit script: one token from each bucket, all or none, on Redis's clock (`TIME`, so
 * instances whose clocks differ agree on every bucket). A bucket is the hash `<ns>:rl:<key>`
 * (`RATE_FIELDS`) that expires once it would be full again: a missing bucket is a full one.
 */
import { RATE_FIELDS } from '../keys.ts';
import { defineScript } from '../scripts.ts';

const { tokens: T, at: AT } = RATE_FIELDS;

/**
 * KEYS: the buckets. ARGV: per bucket, its `perSecond` and `burst` (ARGV[2i-1], ARGV[2i]).
 * Returns 0 when every bucket gave a token, else the milliseconds until each has one.
 */
export const RATE_TAKE = defineScript(
  'rate-take',
  -1,
  `local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local levels = {}
local wait = 0
for i, key in ipairs(KEYS) do
  local rate = tonumber(ARGV[2 * i - 1])
  local burst = tonumber(ARGV[2 * i])
  local stored = redis.call('HMGET', key, '${T}', '${AT}')
  local level = burst
  if stored[1] then
    level = math.min(burst, tonumber(stored[1]) + (now - tonumber(stored[2])) / 1000 * rate)
  end
  levels[i] = level
  if level < 1 then wait = math.max(wait, math.ceil((1 - level) / rate * 1000)) end
end
if wait > 0 then return wait end
for i, key in ipairs(KEYS) do
  local rate = tonumber(ARGV[2 * i - 1])
  local burst = tonumber(ARGV[2 * i])
  local left = levels[i] - 1
  redis.call('HSET', key, '${T}', tostring(left), '${AT}', now)
  redis.call('PEXPIRE', key, math.ceil((burst - left) / rate * 1000) + 1000)
end
return 0`,
);
