/**
 * Whether every list change reached every session of the rolling-deploy test, one notification
 * per change or a catch-up that stands for several (see `unannounced`).
 */
import type { SessionRecord } from './rolling-deploy.ts';

/**
 * How many of the answered touches (sent at `touchedAt`) no list-changed notification of this
 * session accounts for, counting those sent once its GET stream was open (a session is told of
 * the changes raised while it has a standalone stream, and one sent before the GET's answer
 * arrived may have been raised before the server opened it). A tools `list_changed` that arrived after a touch was sent accounts for
 * the oldest touch not yet accounted for. A stream's new home (taken over from an instance that
 * died or drained) sends a catch-up instead of the changes raised while the stream moved, which
 * reached no instance's stream: a `list_changed` of every list (tools, then prompts and
 * resources, which nothing else here changes), telling the client to read them all again. It
 * accounts for every touch sent before it. A change lost with no catch-up after it stays
 * unaccounted.
 */
export function unannounced(record: SessionRecord, touchedAt: readonly number[]): number {
  const opened = record.openedAt;
  if (opened === undefined) return touchedAt.length;
  let next = touchedAt.findIndex((at) => at >= opened);
  if (next === -1) return 0;
  const changes = record.changes;
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i] as { list: string; at: number };
    if (change.list !== 'tools') continue;
    const catchUp = isCatchUp(changes, i);
    if (catchUp) while (next < touchedAt.length && (touchedAt[next] as number) < change.at) next++;
    else if (next < touchedAt.length && (touchedAt[next] as number) < change.at) next++;
  }
  return touchedAt.length - next;
}

/** The catch-ups a session's streams were sent (see `unannounced`). */
export function catchUps(record: SessionRecord): number {
  return record.changes.filter((_, i) => isCatchUp(record.changes, i)).length;
}

/** A tools change followed at once by another list's: the first of a new home's catch-up. */
function isCatchUp(changes: ReadonlyArray<{ list: string }>, i: number): boolean {
  const next = changes[i + 1];
  return changes[i]?.list === 'tools' && next !== undefined && next.list !== 'tools';
}
