/**
 * The operator's `closeAll` across the cluster: every session in Redis ends, in
 * batches of `CLOSE_BATCH` (one pipelined round trip each, no message per session), then one
 * `closeAll` message tells every instance to let go of its replicas.
 */
import type { AbortReasonType } from '@edge-mcp/core';
import type { RedisContext } from './context.ts';
import type { RedisReply } from './redis-types.ts';
import { sessionScripts } from './scripts/sessions.ts';

/** Sessions closed per round trip. */
const CLOSE_BATCH = 100;

/**
 * Ends every session of the cluster with `reason`; `ended` gets each batch's ended records (the
 * calling instance reports them). Resolves with how many ended.
 */
export async function closeEverySession(
  context: RedisContext,
  reason: AbortReasonType,
  ended: (replies: RedisReply[][]) => Promise<void> | undefined,
): Promise<number> {
  const { connection, keys, instance, bus } = context;
  const close = sessionScripts(keys).close;
  let count = 0;
  for (const index of keys.indexes()) count += await closeIndex(index);
  await bus.broadcast({ k: 'closeAll', reason });
  return count;

  async function closeIndex(index: string): Promise<number> {
    let closedHere = 0;
    for (;;) {
      const ids = (await connection.command(['ZRANGE', index, 0, CLOSE_BATCH - 1])) as string[];
      if (ids.length === 0) return closedHere;
      const replies = await connection.pipeline(
        ids.map((id) => ({
          script: close,
          keys: [index],
          args: [keys.namespace, id, reason, instance.tag, '1'],
        })),
      );
      const closed = replies.filter((r): r is RedisReply[] => Array.isArray(r) && r.length > 0);
      // Every close of the batch failed: the same ids would come back for ever.
      const failed = replies.find((r) => r instanceof Error);
      if (failed && closed.length === 0) throw failed;
      closedHere += closed.length;
      await ended(closed);
    }
  }
}
