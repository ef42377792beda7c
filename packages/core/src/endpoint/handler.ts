import { DEFAULTS, type Limits } from '../defaults.ts';
import { allowedOrigins, CorsPolicy } from '../http/cors.ts';
import { ProxyTrust } from '../http/forwarded.ts';
import { AcceptCheck, type HostPolicy, hostPolicy } from '../http/guards.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import { RateLimiter } from '../http/rate-limit.ts';
import type { Reply } from '../http/responses.ts';
import {
  type HandlerCounters,
  runtimeStreamAfterMs,
  type StreamSettings,
} from '../http/stream-settings.ts';
import type { LegacyConfig } from '../legacy/exchange.ts';
import { InFlightLoad } from '../lifecycle/in-flight-load.ts';
import { Scope } from '../lifecycle/scope.ts';
import { RequestStateSigner } from '../modern/request-state.ts';
import { LEGACY_VERSIONS, META, MODERN_VERSION } from '../protocol/constants.ts';
import type { JsonObject, JsonRpcMessage } from '../protocol/jsonrpc.ts';
import type { Registry } from '../server/registry.ts';
import { ResourceServer } from '../server/resource-server.ts';
import { type McpServer, registryOf } from '../server/server.ts';
import type { ClusterEvent, ClusterHost } from '../sessions/cluster.ts';
import type { Session } from '../sessions/session.ts';
import type { SessionHolder } from '../sessions/session-seams.ts';
import { TaskEngine } from '../tasks/engine.ts';
import { runStoredTask } from '../tasks/tools-call.ts';
import { deliverEvent, publishEvents } from './cluster-events.ts';
import { endWaitingStreams } from './drain.ts';
import type { Instrumentation } from './instrumentation.ts';
import type { CloseOptions, HandlerStats, McpHandlerOptions } from './options.ts';
import { RequestAccounting } from './request-accounting.ts';
import { emitSessionEvent, sessionEventOf } from './request-event.ts';
import type { LegacyEra, RoutedEndpoint } from './routed-endpoint.ts';
import { settle } from './settle.ts';

/**
 * Shared state of one handler, built once; every request reads it, none copies it. It is the
 * endpoint routing and both eras serve through (`RoutedEndpoint`), the host its session
 * manager makes sessions through, and the host of its cluster bus.
 */
export class HandlerCore implements RoutedEndpoint, ClusterHost {
  readonly registry: Registry;
  readonly root: Scope = new Scope();
  readonly signer: RequestStateSigner;
  readonly policy: HostPolicy;
  readonly trust: ProxyTrust | undefined;
  readonly accept = new AcceptCheck();
  readonly cors: CorsPolicy | undefined;
  readonly resourceServer: ResourceServer | undefined;
  /** The endpoint's path, or `undefined` for every path. */
  readonly path: string | undefined;
  readonly maxBodyBytes: number;
  readonly streams: StreamSettings;
  readonly limits: Limits;
  readonly load: InFlightLoad;
  readonly rateLimiter: RateLimiter | undefined;
  readonly counters: HandlerCounters = {
    openStreams: 0,
    resumed: 0,
    overflowed: 0,
    dropped: 0,
    rejected: 0,
    evicted: 0,
  };
  readonly shutdownTimeoutMs: number;
  readonly pageSize: number;
  readonly cache: { readonly ttlMs: number; readonly cacheScope: 'public' | 'private' };
  readonly supported: readonly string[];
  readonly legacyEnabled: boolean;
  /** Where sessions live; set when the legacy era is loaded (`legacyEra()`). */
  sessions: SessionHolder | undefined;
  readonly tasks: TaskEngine | undefined;
  /** The legacy era's settings; its event store is set when the era is loaded. */
  legacy: LegacyConfig;
  readonly allow: string;
  readonly serverInfo: JsonObject;
  readonly instructions: string | undefined;
  readonly serverInfoMeta: string;
  readonly #options: McpHandlerOptions;
  readonly #instrumentation: Instrumentation | undefined;
  /** The legacy era's code once loaded, or its load under way (see `legacyEra()`). */
  #era: LegacyEra | Promise<LegacyEra> | undefined;
  readonly requests: RequestAccounting;
  opened = 0;
  /** True from `close()` on: a grace (`graceMs`) may still let calls in flight finish. */
  draining = false;
  /** Open `subscriptions/listen` streams, ended first when the handler drains. */
  readonly listens = new Set<Scope>();
  #closing: Promise<void> | undefined;
  /** Undoes what the constructor attached outside the handler (server listeners, the signal). */
  #detach: Array<() => void> = [];

  constructor(server: McpServer, options: McpHandlerOptions) {
    this.registry = registryOf(server);
    this.#options = options;
    this.#instrumentation = options.instrumentation;
    this.requests = new RequestAccounting(options);
    this.signer = signerOf(options.requestState);
    this.cors = options.cors ? new CorsPolicy(options.cors) : undefined;
    this.resourceServer = options.auth && new ResourceServer(options.auth, options.allowedHosts);
    // Origins allowed to call from a browser pass the Origin check too.
    const origins = allowedOrigins(options.allowedOrigins, this.cors);
    this.policy = hostPolicy(options.allowedHosts, origins);
    this.trust = options.trustProxy === undefined ? undefined : new ProxyTrust(options.trustProxy);
    this.path = options.path === false ? undefined : (options.path ?? DEFAULTS.path);
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULTS.maxBodyBytes;
    this.limits = { ...DEFAULTS.limits, ...options.limits };
    this.rateLimiter = options.rateLimit ? new RateLimiter(options.rateLimit) : undefined;
    this.load = new InFlightLoad(
      this.limits.maxInFlightBytes,
      this.limits.maxInFlightBytesPerPrincipal,
      this.limits.maxInFlightPerPrincipal,
    );
    this.streams = {
      keepAliveMs: options.keepAliveMs ?? DEFAULTS.keepAliveMs,
      streamAfterMs: options.streamAfterMs ?? runtimeStreamAfterMs(),
      maxQueuedBytes: this.limits.maxQueuedBytes,
      counters: this.counters,
    };
    this.shutdownTimeoutMs = options.shutdownTimeoutMs ?? DEFAULTS.shutdownTimeoutMs;
    this.pageSize = options.pageSize ?? DEFAULTS.pageSize;
    this.cache = {
      ttlMs: options.cache?.ttlMs ?? DEFAULTS.cacheTtlMs,
      cacheScope: options.cache?.cacheScope ?? DEFAULTS.cacheScope,
    };
    const { instructions, ...info } = server.info;
    this.serverInfo = info;
    this.instructions = instructions;
    this.serverInfoMeta = `"_meta":${JSON.stringify({ [META.serverInfo]: info })}`;
    this.legacyEnabled = options.legacy !== false;
    this.supported = this.legacyEnabled ? [MODERN_VERSION, ...LEGACY_VERSIONS] : [MODERN_VERSION];
    this.tasks =
      options.tasks === false ? undefined : new TaskEngine(this.root, options.tasks ?? {});
    // Tasks queued for a runner, or lost by theirs, may run here too.
    this.tasks?.serve((record, scope) => runStoredTask(this, record, scope));
    this.allow = this.legacyEnabled && options.sessions !== false ? 'GET, POST, DELETE' : 'POST';
    this.legacy = {
      streams: this.streams,
      eventStore: undefined,
      retryMs: options.retryMs ?? DEFAULTS.retryMs,
      graceMs: options.disconnectGraceMs ?? DEFAULTS.disconnectGraceMs,
    };
    this.#attach(options);
  }

  /**
   * What the handler hooks into outside itself (the session manager, the server's list events,
   * the cluster bus, the instrumentation, the shutdown signal), each undone by `close()`.
   */
  #attach(options: McpHandlerOptions): void {
    // Sessions the caller made are bound at once, so their expiry and bus run from the start.
    if (this.legacyEnabled && options.sessions) void this.legacyEra();
    if (options.cluster) {
      options.cluster.bind(this);
      this.#detach.push(publishEvents(this.registry, options.cluster));
    }
    const release = this.#instrumentation?.observe?.(() => this.stats());
    if (release) this.#detach.push(release);
    const signal = options.signal;
    if (signal?.aborted) void this.close();
    else if (signal) {
      const onAbort = () => void this.close();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#detach.push(() => signal.removeEventListener('abort', onAbort));
    }
  }

  /**
   * The legacy era's code, with the sessions wired, loaded on the first call (a dynamic
   * `import()`: src/endpoint/legacy-era.ts says why); synchronous once loaded.
   */
  legacyEra(): LegacyEra | Promise<LegacyEra> {
    if (this.#era) return this.#era;
    const loading = import('./legacy-era.ts').then((era) => {
      // Shut down before the load began: wiring now would leave a manager and the registry's
      // listeners nothing undoes; a legacy request still in flight is served without sessions.
      if (!this.root.aborted) this.#wire(era);
      this.#era = era;
      return era;
    });
    // A failed load is tried again by the next legacy request.
    loading.catch(() => {
      if (this.#era === loading) this.#era = undefined;
    });
    this.#era = loading;
    return loading;
  }

  /** The sessions and event store of the options, bound here; `close()` undoes the wiring. */
  #wire(era: LegacyEra): void {
    const wired = era.wireSessions({
      root: this.root,
      counters: this.counters,
      registry: this.registry,
      tasks: this.tasks,
      options: this.#options,
    });
    this.sessions = wired.sessions;
    this.legacy = { ...this.legacy, eventStore: wired.eventStore };
    this.#detach.push(...wired.detach);
  }

  /** In-flight requests (open listen streams included). */
  get inFlight(): number {
    return this.requests.inFlight;
  }

  refused(request: IncomingRequest, reply: Reply, message: JsonRpcMessage | undefined): void {
    this.requests.refused(request, reply, message);
  }

  stats(): HandlerStats {
    const counters = this.counters;
    return {
      inFlight: this.inFlight,
      inFlightBytes: this.load.total,
      sessions: this.sessions?.size ?? 0,
      sessionsOpened: this.opened,
      openStreams: counters.openStreams,
      reaped: this.sessions?.reaped ?? 0,
      evicted: counters.evicted,
      resumed: counters.resumed,
      overflowed: counters.overflowed,
      dropped: counters.dropped,
      rejected: counters.rejected,
      tasks: this.tasks?.running ?? 0,
    };
  }

  /** ClusterHost: a list change or resource update raised on another instance. */
  deliver(event: ClusterEvent): void {
    if (!this.root.aborted) deliverEvent(this.registry, event);
  }

  sessionOpened(session: Session, request: IncomingRequest): void {
    this.opened++;
    if (!this.#options.onSessionOpen) return;
    emitSessionEvent(
      this.#options.onSessionOpen,
      sessionEventOf(session, undefined, request.headers.get('user-agent') ?? undefined),
    );
  }

  /**
   * `close()` at once, or after a drain: with `graceMs`, new work is refused (503, Retry-After),
   * open GET and listen streams end (their clients reconnect elsewhere), and calls and tasks in
   * flight get up to `graceMs` to finish before the shutdown aborts what is left.
   */
  close(options?: CloseOptions): Promise<void> {
    if (this.#closing) return this.#closing;
    this.draining = true;
    const graceMs = options?.graceMs ?? 0;
    this.#closing =
      graceMs > 0 ? this.#drain(graceMs).then(() => this.#shutdown()) : this.#shutdown();
    return this.#closing;
  }

  #drain(graceMs: number): Promise<void> {
    endWaitingStreams(this.listens, this.sessions);
    return settle(
      graceMs,
      undefined,
      () => this.#idle(),
      (check) => {
        this.requests.drained = check;
        this.tasks?.onIdle(check);
      },
    );
  }

  #shutdown(): Promise<void> {
    // A load of the legacy era under way wires sessions: end them too, once it is done.
    const era = this.#era;
    if (era instanceof Promise) return era.then(ignore, ignore).then(() => this.#shutdown());
    for (const undo of this.#detach) undo();
    this.#detach = [];
    // Sessions first: they are not in the root's child set (see `open`). A manager spanning
    // instances ends only what this instance holds; the sessions go on elsewhere.
    const sessions = this.sessions;
    const ended = sessions?.shutdown ? sessions.shutdown() : sessions?.closeAll('shutdown');
    // Running tasks are recorded failed (a poll after a restart gets a definite answer) while
    // the root's abort stops their handlers; close() waits for both.
    const tasks = this.tasks?.shutdown();
    const recorded =
      ended instanceof Promise ? Promise.all([ended.catch(ignore), tasks]).then(ignore) : tasks;
    this.root.abort('shutdown');
    const settled = settle(
      this.shutdownTimeoutMs,
      recorded,
      () => this.#idle(),
      (check) => {
        this.requests.drained = check;
        this.tasks?.onIdle(check);
      },
    );
    const onClose = this.#options.onClose;
    // What the stores are built on goes last; its failure must not make close() reject.
    return onClose ? settled.then(onClose).then(ignore, ignore) : settled;
  }

  #idle(): boolean {
    return this.inFlight === 0 && (this.tasks?.running ?? 0) === 0;
  }
}

function ignore(): void {}

/** The `requestState` signer, with its defaults. */
function signerOf(state: McpHandlerOptions['requestState']): RequestStateSigner {
  return new RequestStateSigner(
    state?.secret,
    state?.ttlMs ?? DEFAULTS.requestStateTtlMs,
    state?.singleUse === true,
  );
}
