/**
 * Both ends of a stream relayed between two instances, over the bus: the relay's
 * `RemoteStreamLink` (the holder's events for this instance's client, buffered until the relay
 * opens it) and the holder's `RemoteSink` (its stream's events for a relay elsewhere).
 */
import type { RemoteSink, RemoteStreamLink, SessionStream } from '@edge-mcp/core/cluster';
import type { BusEnvelope, BusMessage } from './bus-messages.ts';

type Why = 'disconnect' | 'stream-overflow';

/** What both ends need of the links' registry (`StreamLinks`). */
export interface LinkOwner {
  /** Publishes to `tag`; resolves with the receivers, 0 when it could not be sent. */
  send(tag: string, message: BusMessage): Promise<number>;
  forgetRelay(n: string): void;
  forgetSink(n: string): void;
}

/** The relay side: the holder's events for this instance's relay of the stream. */
export class RelayLink implements RemoteStreamLink {
  lastId: string | undefined;
  readonly holder: string;
  readonly #links: LinkOwner;
  readonly #s: string;
  readonly #st: string;
  readonly #n: string;
  #sink: RemoteSink | undefined;
  #queued: Array<(sink: RemoteSink) => void> | undefined = [];
  #answer: ((ack: { live: boolean } | undefined) => void) | undefined;
  #ack: { live: boolean } | undefined;
  #over = false;

  constructor(links: LinkOwner, s: string, st: string, holder: string, n: string) {
    this.#links = links;
    this.#s = s;
    this.#st = st;
    this.holder = holder;
    this.#n = n;
  }

  /** Waits for the holder's `ack` (undefined after `ms`); at once when it came already. */
  ack(ms: number): Promise<{ live: boolean } | undefined> {
    if (this.#ack) return Promise.resolve(this.#ack);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), ms);
      this.#answer = (ack) => {
        clearTimeout(timer);
        resolve(ack);
      };
    });
  }

  /** The holder's answer (it may arrive before the attach's `PUBLISH` reply: two connections). */
  acked(live: boolean, lastId: string | undefined): void {
    this.lastId = lastId;
    this.#ack = { live };
    this.#answer?.(this.#ack);
    this.#answer = undefined;
  }

  open(sink: RemoteSink): void {
    this.#sink = sink;
    const queued = this.#queued ?? [];
    this.#queued = undefined;
    for (const deliver of queued) deliver(sink);
  }

  close(why: Why): void {
    if (this.#over) return;
    this.#over = true;
    this.#links.forgetRelay(this.#n);
    void this.#links.send(this.holder, { k: 'detach', s: this.#s, st: this.#st, n: this.#n, why });
  }

  event(message: string, id: string | undefined, final: boolean): void {
    if (final) this.#finish();
    this.#deliver((sink) => sink.send(message, id, final));
  }

  ended(): void {
    this.#finish();
    this.#deliver((sink) => sink.end());
  }

  #finish(): void {
    this.#over = true;
    this.#links.forgetRelay(this.#n);
    this.#answer?.(undefined);
    this.#answer = undefined;
  }

  #deliver(fn: (sink: RemoteSink) => void): void {
    if (this.#sink) fn(this.#sink);
    else this.#queued?.push(fn);
  }
}

/** The holder side: what a stream of this instance sends to a relay elsewhere. */
export class HolderSink implements RemoteSink {
  readonly #links: LinkOwner;
  readonly #stream: SessionStream;
  readonly #to: string;
  readonly #s: string;
  readonly #st: string;
  readonly #n: string;
  #over = false;

  constructor(links: LinkOwner, stream: SessionStream, attach: BusEnvelope<'attach'>) {
    this.#links = links;
    this.#stream = stream;
    this.#to = attach.o;
    this.#s = attach.s;
    this.#st = attach.st;
    this.#n = attach.n;
  }

  send(message: string, id: string | undefined, final: boolean): void {
    if (this.#over) return;
    if (final) this.#forget();
    const ev = { k: 'ev' as const, s: this.#s, st: this.#st, n: this.#n, m: message };
    const sent = this.#links.send(this.#to, {
      ...ev,
      ...(id === undefined ? {} : { id }),
      ...(final ? { f: true } : {}),
    });
    // Nobody received it: the relay's instance is gone, as if its client left.
    if (!final) void sent.then((receivers) => receivers === 0 && this.dropped('disconnect'));
  }

  end(): void {
    if (this.#over) return;
    this.#forget();
    void this.#links.send(this.#to, { k: 'end', s: this.#s, st: this.#st, n: this.#n });
  }

  /** The relay's client left (or its instance is gone): the stream's disconnect policy. */
  dropped(why: Why): void {
    if (this.#over) return;
    this.#forget();
    this.#stream.remoteDropped?.(this, why);
  }

  #forget(): void {
    this.#over = true;
    this.#links.forgetSink(this.#n);
  }
}
