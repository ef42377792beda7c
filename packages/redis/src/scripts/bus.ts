/** The bus's scripts. */
import { INBOX_MAX } from '../keys.ts';
import { defineScript } from '../scripts.ts';

/**
 * A targeted message that must not be lost (a client's response): published to the target's
 * channel; if nobody received it while the target's liveness key exists (its subscriber is
 * reconnecting), pushed to the target's inbox instead, which it drains when its subscriber is
 * ready again and on each heartbeat. The inbox keeps the newest `INBOX_MAX` messages: a client
 * answering with ids that name an instance whose subscriber is away cannot grow it without bound.
 * KEYS: liveness key, inbox. ARGV: channel, message, inbox TTL (ms).
 * Returns the receivers (> 0), -1 when inboxed, 0 when the target is gone.
 */
const publishOrInbox = (publish: string) => `local n = redis.call('${publish}', ARGV[1], ARGV[2])
if n > 0 then return n end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('LTRIM', KEYS[2], -${INBOX_MAX}, -1)
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return -1`;

export const PUBLISH_OR_INBOX = defineScript('publish-or-inbox', 2, publishOrInbox('PUBLISH'));
/** Sharded: the channel, liveness key and inbox share the instance's slot (`{i:<tag>}`). */
export const SHARDED_PUBLISH_OR_INBOX = defineScript(
  'sharded-publish-or-inbox',
  2,
  publishOrInbox('SPUBLISH'),
);
