/**
 * `RedisSessionStore`: the records of legacy sessions in Redis, shared by every
 * instance, under the core's `SessionManager` (which holds the live copies here). One `TOUCH`
 * script per request revalidates a copy and pushes the idle deadline; the record's fields are
 * written as they change; the deadline is a sorted set pushed by requests and by each instance's
 * heartbeat for what it holds busy, and swept in Redis; the cap is cluster-wide. What happens to
 * a session on one instance reaches the others on the bus.
 */
import type { AbortReasonType } from '@edge-mcp/core';
import {
  type SessionChange,
  type SessionInit,
  SessionLimitError,
  type SessionLoad,
  type SessionRecord,
  type SessionStore,
  type SessionStoreHost,
} from '@edge-mcp/core/sessions';
import { Admission } from './admission.ts';
import { closeEverySession } from './close-all.ts';
import type { RedisContext } from './context.ts';
import { sessionBeat } from './heartbeat.ts';
import type { RedisReply } from './redis-types.ts';
import { type SessionScripts, sessionScripts } from './scripts/sessions.ts';
import { decodeRecord, endedRecord, initFields, reasonOf } from './session-record.ts';
import { SessionWriter } from './session-writes.ts';

export class RedisSessionStore implements SessionStore {
  readonly shared = true;
  readonly #context: RedisContext;
  readonly #writer: SessionWriter;
  readonly #scripts: SessionScripts;
  /** Sharded: the caps, counted apart from the partitions. */
  readonly #admission: Admission | undefined;
  /** Milliseconds from a touch to the idle deadline (idle timeout + one heartbeat). */
  readonly deadlineMs: number;
  /** The backstop TTL of a session's keys: Redis removes an abandoned session by itself. */
  readonly backstopMs: number;
  /** Redis was away: the next heartbeat checks every session held here, not only the busy ones. */
  reconcile = false;
  /** Sessions created and not written yet: their first write is what `CREATE` stored. */
  readonly #fresh = new Set<string>();
  readonly #detach: Array<() => void> = [];
  /** Remembered cancels of the cluster part, pruned by the heartbeat. */
  readonly #prune: () => void;
  /** The core's manager, from `bind` (it binds at its construction, before any call). */
  #host: SessionStoreHost | undefined;
  #closed: Promise<void> | undefined;

  constructor(context: RedisContext, prune: () => void) {
    const { options, connection, keys, instance } = context;
    this.#context = context;
    this.#prune = prune;
    this.#writer = new SessionWriter(connection, keys, instance.tag, options.onError);
    this.#scripts = sessionScripts(keys);
    this.#admission = keys.sharded ? new Admission(context, this) : undefined;
    this.deadlineMs = options.idleTimeoutMs + options.heartbeatMs;
    this.backstopMs = this.deadlineMs + 60_000;
  }

  bind(host: SessionStoreHost): void {
    this.#host = host;
    const { bus, instance, connection } = this.#context;
    this.#detach.push(
      bus.on('closed', ({ s, reason }) => host.gone(s, reasonOf(reason))),
      bus.on('closeAll', ({ reason }) => {
        const held: string[] = [];
        host.forEachHeld((id) => held.push(id));
        for (const id of held) host.gone(id, reasonOf(reason));
      }),
      instance.onBeat(() => sessionBeat(this, this.#context)),
      connection.onUnavailable(() => {
        this.reconcile = true;
      }),
    );
  }

  async create(init: SessionInit): Promise<string> {
    const { connection, keys, options, instance } = this.#context;
    const id = keys.newSessionId();
    // The quota key the memory manager and `Session.quotaKey` use.
    const principal = init.owner ?? init.client ?? '';
    await this.#admission?.admit(id, principal);
    const reply = (await connection
      .durable(
        this.#scripts.create,
        this.#admission
          ? [keys.index(id), keys.session(id)]
          : [keys.index(id), keys.session(id), keys.principalSessions(principal)],
        [
          keys.namespace,
          id,
          options.maxSessions,
          this.deadlineMs,
          this.backstopMs,
          Math.round(1.5 * options.heartbeatMs),
          instance.tag,
          principal,
          options.maxSessionsPerPrincipal,
          ...initFields(init),
        ],
      )
      .catch(async (error: unknown) => {
        // Its places in the admission sets are freed now rather than at the next prune.
        await this.#admission?.release([[id, principal]]);
        throw error;
      })) as RedisReply[];
    void this.ended(reply.slice(1));
    if (reply[0] === 'quota')
      throw new SessionLimitError(options.maxSessionsPerPrincipal, 1, 'principal');
    if (reply[0] !== 'ok') throw new SessionLimitError(options.maxSessions, 1);
    this.#fresh.add(id);
    return id;
  }

  async load(id: string, knownVersion: number | undefined): Promise<SessionLoad> {
    const { connection, keys } = this.#context;
    const known = knownVersion !== undefined && knownVersion > 0 ? String(knownVersion) : '';
    const reply = await connection.script(
      this.#scripts.touch,
      [keys.session(id), keys.events(id), keys.index(id), keys.gone(id)],
      [id, this.deadlineMs, this.backstopMs, known],
    );
    if (Array.isArray(reply) && reply[0] === 0) {
      this.#host?.gone(id, reasonOf(reply[1]));
      return 'gone';
    }
    // A copy whose own changes are not in Redis yet is newer than the record: they are written
    // now that Redis answers (a blip's queued writes), before anyone reads the record again.
    if (knownVersion !== undefined && this.#writer.unwritten(id)) {
      await this.#writer.flushQueuedOf(id);
      return 'unchanged';
    }
    if (!Array.isArray(reply)) return 'unchanged';
    return decodeRecord(id, reply) ?? 'gone';
  }

  write(record: SessionRecord, change: SessionChange | undefined): Promise<void> | undefined {
    // The first record of a new session: `CREATE` stored its fields already.
    if (change === undefined && this.#fresh.delete(record.id)) return undefined;
    return this.#writer.changed(record, change);
  }

  async delete(id: string, reason: AbortReasonType): Promise<boolean> {
    const { connection, keys, instance } = this.#context;
    this.#fresh.delete(id);
    const reply = await connection.script(
      this.#scripts.close,
      [keys.index(id)],
      [keys.namespace, id, reason, instance.tag, ''],
    );
    this.#writer.drop(id);
    const ended = Array.isArray(reply) && reply.length > 0;
    if (ended && this.#admission) await this.#admission.release([[id, String(reply[6] ?? '')]]);
    return ended;
  }

  /** Deadlines are pushed by every request (`TOUCH`) and swept in Redis: nothing to schedule. */
  touch(): void {}

  /** Ends every session of the cluster; resolves with how many ended. */
  async clear(reason: AbortReasonType): Promise<number> {
    return closeEverySession(this.#context, reason, (ended) => this.ended(ended));
  }

  /**
   * This instance stops: what it has not written yet is written, its listeners go and its
   * liveness key goes (others see its streams orphaned at once); the sessions stay.
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      const flushed = this.#writer.flushQueued(true);
      for (const detach of this.#detach.splice(0)) detach();
      await Promise.all([flushed, this.#context.instance.stop()]);
    })();
    return this.#closed;
  }

  // For the heartbeat (heartbeat.ts).

  forEachHeld(fn: (id: string, busy: boolean) => void): void {
    this.#host?.forEachHeld(fn);
  }

  writer(): SessionWriter {
    return this.#writer;
  }

  pruneCancels(): void {
    this.#prune();
  }

  gone(id: string, reason: AbortReasonType): void {
    this.#writer.drop(id);
    this.#host?.gone(id, reason);
  }

  /**
   * Sessions this instance ended in a script (`end_session`'s `{reason, id, pv, ci, cc, ow,
   * principal}`): their end is reported here, once in the cluster (hooks, `onSessionClose`, events
   * dropped). Sharded, they leave the admission sets too (what the promise waits for).
   */
  ended(replies: readonly RedisReply[]): Promise<void> | undefined {
    const released: Array<[string, string]> = [];
    for (const reply of replies) {
      if (!Array.isArray(reply)) continue;
      const [reason, id, pv, ci, cc, ow, principal = ''] = reply.map(String) as string[];
      this.#writer.drop(id as string);
      released.push([id as string, principal]);
      this.#host?.ended(
        endedRecord(id as string, pv as string, ci as string, cc as string, ow as string),
        reasonOf(reason),
      );
    }
    return this.#admission?.release(released);
  }
}
