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
import type { RedisOp, RedisReply } from './redis-types.ts';
import { REFRESH, SWEEP } from './scripts/sessions.ts';
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
  ended(replies: readonly RedisReply[]): void;
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
  const ops: RedisOp[] = [];
  for (let i = 0; i < busy.length; i += REFRESH_BATCH)
    ops.push({
      script: REFRESH,
      keys: [keys.sessions],
      args: [
        keys.namespace,
        store.deadlineMs,
        store.backstopMs,
        ...busy.slice(i, i + REFRESH_BATCH),
      ],
    });
  const refreshes = ops.length;
  ops.push({
    script: SWEEP,
    keys: [keys.sessions],
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
        } else store.ended(reply as RedisReply[]);
      });
    },
    failed() {
      if (all) store.reconcile = true;
    },
  };
}
