/**
 * The Redis backend's `SessionCluster`: what the core asks when its
 * local lookup missed. A cancel is broadcast (the client chose the request's id, which names no
 * instance) and remembered here in case its request registers late; a client's response goes to
 * the instance its request id names (the inbox keeps it while that instance's subscriber is
 * away); a stream held elsewhere is linked through its holder. What other instances send back
 * lands here too.
 */
import type { RequestId } from '@edge-mcp/core';
import type {
  ClientResponse,
  RemoteStreamLink,
  Session,
  SessionCluster,
  SessionIds,
} from '@edge-mcp/core/cluster';
import type { RedisContext } from './context.ts';
import { EarlyCancels } from './early-cancels.ts';
import { holderOf } from './instance.ts';
import { StreamLinks } from './streams.ts';

/** What the cluster part needs of the core's session manager. */
export interface ReplicaSource {
  peek(id: string): Session | undefined;
  /** Reads the session's record again (its subscriptions changed elsewhere). */
  reload(id: string): void;
}

export class RedisSessionCluster implements SessionCluster {
  readonly #context: RedisContext;
  /** Stream and server→client request ids that name this instance. */
  readonly ids: SessionIds;
  readonly #sessions: ReplicaSource;
  readonly #early = new EarlyCancels();
  readonly #links: StreamLinks;

  constructor(context: RedisContext, sessions: ReplicaSource) {
    this.#context = context;
    this.ids = context.instance.ids;
    this.#sessions = sessions;
    this.#links = new StreamLinks(context, sessions);
  }

  /** Listens to what other instances send; returns the function that stops it. */
  start(): () => void {
    const { bus } = this.#context;
    const off = [
      bus.on('cancel', ({ s, r }) => {
        const session = this.#sessions.peek(s);
        const request = session?.requests.get(r);
        if (request) request.abort('client-cancel');
        else this.#early.remember(s, r, session);
      }),
      bus.on('resp', (message) => {
        const response = message.error
          ? { error: message.error }
          : { result: message.result ?? {} };
        this.#sessions.peek(message.s)?.answer(message.id, response as ClientResponse);
      }),
      bus.on('stale', ({ s }) => {
        if (this.#sessions.peek(s)) this.#sessions.reload(s);
      }),
      this.#links.start(),
    ];
    return () => {
      for (const undo of off) undo();
      this.#links.stop();
    };
  }

  cancel(session: Session, requestId: RequestId): void {
    // It may yet register here (its touch still on the way), or run elsewhere.
    this.#early.remember(session.id, requestId, session);
    this.#context.bus
      .broadcast({ k: 'cancel', s: session.id, r: requestId })
      .catch((error: Error) => this.#context.options.onError(error, 'cancel'));
  }

  respond(session: Session, id: RequestId, response: ClientResponse): void {
    const holder = holderOf(id);
    if (holder === undefined || holder === this.#context.instance.tag) return;
    this.#context.bus
      .deliver(holder, { k: 'resp', s: session.id, id, ...response })
      .catch((error: Error) => this.#context.options.onError(error, 'respond'));
  }

  link(
    session: Session,
    streamId: string,
    lastEventId: string | undefined,
  ): Promise<RemoteStreamLink | 'local' | 'orphaned'> {
    return this.#links.link(session, streamId, lastEventId);
  }

  /** A replica made here: a cancel remembered for one of its requests is watched for. */
  adopted(session: Session): void {
    this.#early.adopted(session);
  }

  /** The session is over here: its remembered cancels go. */
  forget(id: string): void {
    this.#early.forget(id);
  }

  /** Remembered cancels that waited too long go (the heartbeat). */
  prune(): void {
    this.#early.prune();
  }
}
