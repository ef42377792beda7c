/**
 * Streams held by another instance: `SessionCluster.link` and both ends of a
 * relayed stream over the bus. The relay asks the holder (named by the stream's id, or the
 * session's standalone home `gh`) with `attach`; the holder attaches a `RemoteSink` to its stream
 * and answers `ack` from its commands connection, so every append it issued before is in Redis
 * before the relay replays; then each event goes as `ev`, the end as `end`, and the relay's client
 * leaving as `detach`. No stream message is inboxed: when Redis or the other side goes away, a
 * relay ends its connection (the client resumes from the store) and a holder treats its relay as
 * dropped (the disconnect grace).
 */
import type { RemoteStreamLink, Session } from '@edge-mcp/core/cluster';
import type { BusEnvelope, BusMessage } from './bus-messages.ts';
import type { RedisContext } from './context.ts';
import { holderOf } from './instance.ts';
import { RedisUnavailableError } from './redis-types.ts';
import { sessionScripts } from './scripts/sessions.ts';
import { HolderSink, type LinkOwner, RelayLink } from './stream-ends.ts';

/** How an attach ended when it did not link: nobody listens there or its liveness lapsed
 * (`gone`), the holder has no such stream (`none`), it lives but did not answer in time
 * (`silent`). */
type Unlinked = 'gone' | 'none' | 'silent';

function nonce(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(36)).join('');
}

export class StreamLinks implements LinkOwner {
  readonly #context: RedisContext;
  readonly #sessions: { peek(id: string): Session | undefined };
  /** Relay side: links this instance relays, by nonce. */
  readonly #relays = new Map<string, RelayLink>();
  /** Holder side: sinks of this instance's streams relayed elsewhere, by nonce. */
  readonly #sinks = new Map<string, HolderSink>();

  constructor(context: RedisContext, sessions: { peek(id: string): Session | undefined }) {
    this.#context = context;
    this.#sessions = sessions;
  }

  /** Registers the bus handlers, the holders' liveness check and the loss of Redis. */
  start(): () => void {
    const { bus, instance, connection, keys } = this.#context;
    const off = [
      bus.on('attach', (m) => this.#attached(m)),
      bus.on('ack', (m) => this.#relays.get(m.n)?.acked(m.live, m.lastId)),
      bus.on('ev', (m) => {
        const link = this.#relays.get(m.n);
        if (link) link.event(m.m, m.id, m.f === true);
        // A relay that is over: its holder stops sending (a lost `detach`).
        else this.#send(m.o, { k: 'detach', s: m.s, st: m.st, n: m.n, why: 'disconnect' });
      }),
      bus.on('end', (m) => this.#relays.get(m.n)?.ended()),
      bus.on('detach', (m) => this.#sinks.get(m.n)?.dropped(m.why)),
      instance.onBeat(() => {
        const holders = [...new Set([...this.#relays.values()].map((link) => link.holder))];
        if (holders.length === 0) return undefined;
        return {
          ops: holders.map((tag) => ['EXISTS', keys.instance(tag)]),
          done: (replies) =>
            replies.forEach((alive, i) => {
              if (alive === 0) this.#endRelays((link) => link.holder === holders[i]);
            }),
        };
      }),
      connection.onUnavailable(() => {
        // Messages may be lost while Redis is away: relays end (clients resume from the store),
        // holders treat their relays as dropped.
        this.#endRelays(() => true);
        for (const sink of [...this.#sinks.values()]) sink.dropped('disconnect');
      }),
    ];
    return () => {
      for (const undo of off) undo();
    };
  }

  /** Forgets every link (the manager's shutdown ended the streams and relays already). */
  stop(): void {
    this.#endRelays(() => true);
    this.#sinks.clear();
  }

  async link(
    session: Session,
    streamId: string,
    lastEventId: string | undefined,
  ): Promise<RemoteStreamLink | 'local' | 'orphaned'> {
    if (streamId === '0') return this.#standalone(session, lastEventId !== undefined);
    const holder = holderOf(streamId);
    if (holder === undefined || holder === this.#context.instance.tag) return 'local';
    const link = await this.#attach(session.id, streamId, holder);
    if (typeof link === 'object') return link;
    // Alive but silent: replayed and ended here (the client resumes again later).
    return link === 'gone' ? 'orphaned' : 'local';
  }

  /**
   * The standalone stream lives at its home; a GET where there is none (or it is gone) moves it:
   * `'orphaned'` when it moves from a home that died or gave it up, or a resume finds no home.
   */
  async #standalone(
    session: Session,
    resumed: boolean,
  ): Promise<RemoteStreamLink | 'local' | 'orphaned'> {
    const { connection, keys, instance, options } = this.#context;
    const tag = instance.tag;
    let expected = '';
    let moved = false;
    for (let tries = 0; tries < 3; tries++) {
      const home = await connection.script(
        sessionScripts(keys).home,
        [keys.session(session.id)],
        [tag, expected],
      );
      // A resume that finds no live home: the last one let the stream go (it shut down) or lost
      // it, and what was raised since reached no stream either.
      if (home === '' || home === tag) return moved || resumed ? 'orphaned' : 'local';
      const link = await this.#attach(session.id, '0', String(home));
      if (typeof link === 'object') return link;
      if (link === 'silent') break;
      // Its home died or gave it up (drained): taken over from it. News raised while it moved
      // reached neither instance's stream; the new home says so (see `'orphaned'`).
      moved = true;
      expected = String(home);
    }
    // Two homes would store and send each notification twice: the client retries instead.
    throw new RedisUnavailableError(`the standalone stream of session ${session.id} is busy`, {
      retryAfterSeconds: options.retryAfterSeconds,
    });
  }

  async #attach(s: string, st: string, holder: string): Promise<RelayLink | Unlinked> {
    const { bus, instance, options } = this.#context;
    const n = nonce();
    const link = new RelayLink(this, s, st, holder, n);
    this.#relays.set(n, link);
    let receivers: number;
    try {
      receivers = await bus.send(holder, { k: 'attach', s, st, n, from: instance.tag });
    } catch (error) {
      this.#relays.delete(n);
      throw error;
    }
    // Nobody subscribed to its channel: the holder is gone (a killed process's connections are
    // closed by its kernel at once; its liveness key only lapses later).
    if (receivers === 0) {
      this.#relays.delete(n);
      return 'gone';
    }
    const ack = await link.ack(options.linkTimeoutMs);
    if (ack?.live) return link;
    this.#relays.delete(n);
    if (ack) return 'none';
    // No answer in time: a late attach there is undone; a holder whose key lapsed is gone.
    this.#send(holder, { k: 'detach', s, st, n, why: 'disconnect' });
    return (await instance.alive(holder)) ? 'silent' : 'gone';
  }

  /** The holder side of `attach`: the stream's connection becomes the relay. */
  #attached(m: BusEnvelope<'attach'>): void {
    const session = this.#sessions.peek(m.s);
    const stream = m.st === '0' ? session?.standalone : session?.streams.get(m.st);
    const sink = stream?.attachRemote ? new HolderSink(this, stream, m) : undefined;
    if (sink) this.#sinks.set(m.n, sink);
    const live = sink !== undefined && stream?.attachRemote?.(sink) === true;
    if (sink && !live) this.#sinks.delete(m.n);
    // A standalone stream that is over here (this instance drains) moves to the asking
    // instance: from now on it sends and stores the session's news, this one no longer (both
    // would store each change twice). What this one stored until now is replayed there.
    if (!live && session && m.st === '0' && session.standalone === stream && stream)
      session.standalone = undefined;
    const lastId = live ? stream?.lastId : undefined;
    const ack = { k: 'ack' as const, s: m.s, st: m.st, n: m.n, live };
    this.#send(m.o, lastId === undefined ? ack : { ...ack, lastId });
  }

  #endRelays(which: (link: RelayLink) => boolean): void {
    for (const link of [...this.#relays.values()]) if (which(link)) link.ended();
  }

  /** Publishes to `tag`; resolves with the receivers, 0 when it could not be sent. */
  send(tag: string, message: BusMessage): Promise<number> {
    return this.#context.bus.send(tag, message).catch((error: Error) => {
      this.#context.options.onError(error, 'stream');
      return 0;
    });
  }

  #send(tag: string, message: BusMessage): void {
    void this.send(tag, message);
  }

  forgetRelay(n: string): void {
    this.#relays.delete(n);
  }

  forgetSink(n: string): void {
    this.#sinks.delete(n);
  }
}
