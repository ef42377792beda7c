/**
 * The session store's share of each heartbeat, in the instance's one pipelined
 * round trip: the deadlines of the sessions busy here (a request in flight, a connection, a relay)
 * are pushed, so a session active anywhere never expires while one whose only activity was on a
 * dead instance expires normally (no count is stored that could be stranded); the sessions found
 * gone meanwhile release their replicas (a missed `closed`); due sessions are swept. Writes
 * queued while Redis was away are flushed alongside.
 */
import type { AbortReasonType } from '@edge-mcp/core';
import type { RedisContext } from './context.ts';
import type { BeatPart } from './instance.ts';
import type { RedisKeys } from './keys.ts';
import type { RedisOp, RedisReply } from './redis-types.ts';
import { sessionScripts } from './scripts/sessions.ts';
import { reasonOf } from './session-record.ts';
import type { SessionWriter } from './session-writes.ts';

/** Session ids per refresh script call. */
const REFRESH_BATCH = 500;
/** Sessions ended per sweep. */
const SWEEP_LIMIT = 100;

/** What a beat reads and tells of the session store (its own type would import it back). */
export interface BeatingStore {
  readonly deadlineMs: number;
  readonly backstopMs: number;
  /** Check every session held here at the next beat (Redis was away). */
  reconcile: boolean;
  pruneCancels(): void;
  /** Calls `fn` for each session the manager holds here, and whether it is busy. */
  forEachHeld(fn: (id: string, busy: boolean) => void): void;
  writer(): SessionWriter;
  /** The session ended elsewhere. */
  gone(id: string, reason: AbortReasonType): void;
  ended(replies: readonly RedisReply[]): Promise<void> | undefined;
}

export function sessionBeat(store: BeatingStore, context: RedisContext): BeatPart {
  const { keys, instance } = context;
  store.pruneCancels();
  // After Redis was away, every session held here is checked: some may have ended meanwhile.
  const all = store.reconcile;
  store.reconcile = false;
  void store.writer().flushQueued();
  const busy: string[] = [];
  store.forEachHeld((id, active) => {
    if (all || active) busy.push(id);
  });
  const scripts = sessionScripts(keys);
  const ops: RedisOp[] = [];
  // One refresh per index (sharded: per partition, so each script touches one slot).
  for (const [index, ids] of byIndex(busy, keys))
    for (let i = 0; i < ids.length; i += REFRESH_BATCH)
      ops.push({
        script: scripts.refresh,
        keys: [index],
        args: [
          keys.namespace,
          store.deadlineMs,
          store.backstopMs,
          ...ids.slice(i, i + REFRESH_BATCH),
        ],
      });
  const refreshes = ops.length;
  for (const index of keys.indexes())
    ops.push({
      script: scripts.sweep,
      keys: [index],
      args: [keys.namespace, instance.tag, SWEEP_LIMIT],
    });
  return {
    ops,
    done(replies) {
      replies.forEach((reply, i) => {
        if (reply instanceof Error) {
          context.options.onError(reply, 'heartbeat');
          if (i < refreshes && all) store.reconcile = true;
          return;
        }
        if (i < refreshes) {
          const gone = reply as RedisReply[];
          for (let j = 0; j + 1 < gone.length; j += 2)
            store.gone(String(gone[j]), reasonOf(gone[j + 1]));
        } else void store.ended(reply as RedisReply[]);
      });
    },
    failed() {
      if (all) store.reconcile = true;
    },
  };
}

/** Session ids grouped by the index that holds them. */
function byIndex(ids: readonly string[], keys: RedisKeys): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const id of ids) {
    const index = keys.index(id);
    const group = groups.get(index);
    if (group) group.push(id);
    else groups.set(index, [id]);
  }
  return groups;
}
