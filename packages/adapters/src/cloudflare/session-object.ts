import {
  type AbortReasonType,
  createMcpHandler,
  type McpHandler,
  type McpHandlerOptions,
  type McpServer,
  type TaskOptions,
} from '@edge-mcp/core';
import { checkOptionKeys, HANDLE, optionKeys } from '@edge-mcp/core/adapter';
import type { Session } from '@edge-mcp/core/cluster';
import { SessionManager } from '@edge-mcp/core/sessions';
import { toWebResponse } from '../shared/light-response.ts';
import { withClient } from './client-address.ts';
import { DurableObjectEventStore, type DurableObjectEventStoreOptions } from './do-event-store.ts';
import { DurableObjectSessionStore } from './do-session-store.ts';
import { DurableObjectTaskStore } from './do-task-store.ts';
import { ObjectAlarm } from './object-alarm.ts';
import { givenOf } from './principal.ts';
import { report } from './session-registry.ts';
import { WORKERD_HANDLER_OPTIONS } from './worker.ts';
import type { DurableObjectNamespace, DurableObjectState } from './workers-types.ts';

/** Base URL of operator requests to a session object (never a client's). */
export const CONTROL = 'https://edge-mcp.internal';

/** What a session object serves; built once per object instance. */
export interface SessionObjectConfig {
  server: McpServer;
  /**
   * Handler options (hooks, allow-lists, keep-alive); sessions, events and tasks are the
   * object's own (a `tasks` here is ignored: see the `tasks` field).
   */
  options?: Omit<McpHandlerOptions, 'sessions' | 'eventStore' | 'legacy' | 'tasks'>;
  /**
   * Tasks run in the object, their records in its storage (`DurableObjectTaskStore`): the tasks of
   * its legacy session, and the 2026-07-28 task a session Worker with `tasks` sends to a new
   * object. `heartbeatMs`: while a task runs, the object's alarm fires at least this often, which
   * keeps the object in memory between polls. `false`: no tasks (task tools run as plain calls).
   * @default { ttlMs: 3600000, pollIntervalMs: 1000, heartbeatMs: 30000 }
   */
  tasks?: (Omit<TaskOptions, 'store'> & { heartbeatMs?: number }) | false;
  /** Idle timeout, enforced with the object's alarm. @default 600000 (10 min) */
  idleTimeoutMs?: number;
  /** Bound of the stored event log. @default 1000 events, 1 MiB */
  events?: DurableObjectEventStoreOptions;
  /**
   * The `SessionRegistry` namespace, to record live sessions so they can all be ended; give the
   * session Worker the same one (its `registry`) to cap sessions, so ended ones leave the count.
   */
  registry?: DurableObjectNamespace;
}

/** The names a `defineSessionObject` config takes (its `options` are the handler's, checked there). */
const CONFIG_KEYS = optionKeys<SessionObjectConfig>()([
  'server',
  'options',
  'tasks',
  'idleTimeoutMs',
  'events',
  'registry',
]);

/** The class a Worker exports and binds as a Durable Object namespace. */
export interface SessionObjectClass<Env> {
  new (state: DurableObjectState, env: Env): SessionObject;
}

export interface SessionObject {
  fetch(request: Request): Promise<Response>;
  /** The object's alarm: the session's idle timeout, the tasks' TTL and heartbeat. */
  alarm(): Promise<void>;
  /**
   * Operator: end this object's session (reason defaults to `session-deleted`). With `asPrincipal`,
   * only a session that principal owns (false otherwise, as for no session).
   */
  closeSession(reason?: AbortReasonType, asPrincipal?: string): Promise<boolean>;
  /**
   * Operator: what the object holds. With `asPrincipal`, a session another principal owns is
   * reported as no session at all (an admin route acting for a user reveals nothing of others').
   */
  inspect(asPrincipal?: string): Promise<SessionInspection>;
}

/** What a session object reports to an operator. */
export interface SessionInspection {
  /** The live session's id, if the object holds one. */
  session: string | undefined;
  /** The principal that opened it (with authorization on). */
  owner: string | undefined;
  /** Stored events and their bytes (bounded by the object's `events` options). */
  events: number;
  bytes: number;
  reaped: number;
  /** Task records stored in the object, and how many of them are still running. */
  tasks: number;
  activeTasks: number;
}

/**
 * A Durable Object class holding one legacy session: the same handler as everywhere, with the
 * object's SessionStore, EventStore and TaskStore behind the core's seams (no second protocol
 * implementation). Requests reach it from `createSessionWorker`, streamed both ways, so a client
 * that leaves cancels the handler running in here as it would anywhere else. The same class
 * hosts tasks: its session's, and a 2026-07-28 task the Worker sends to a new object.
 *
 * @example
 * ```ts
 * export const McpSession = defineSessionObject((env: Env) => ({ server: createMyServer() }));
 * ```
 */
export function defineSessionObject<Env>(
  build: (env: Env) => SessionObjectConfig,
): SessionObjectClass<Env> {
  return class McpSessionObject implements SessionObject {
    readonly #handler: McpHandler;
    readonly #manager: SessionManager;
    readonly #store: DurableObjectSessionStore;
    readonly #events: DurableObjectEventStore;
    readonly #tasks: DurableObjectTaskStore;
    readonly #alarm: ObjectAlarm;

    constructor(state: DurableObjectState, env: Env) {
      const config = build(env);
      checkOptionKeys(config, CONFIG_KEYS, 'defineSessionObject()');
      const registry = config.registry;
      const options = config.options ?? {};
      const { heartbeatMs, ...taskOptions } = config.tasks || {};
      // One alarm for the session's idle timeout and the tasks' TTL and heartbeat.
      this.#alarm = new ObjectAlarm(state);
      this.#store = new DurableObjectSessionStore(state, { alarm: this.#alarm });
      this.#manager = new SessionManager({
        store: this.#store,
        idleTimeoutMs: config.idleTimeoutMs,
      });
      this.#events = new DurableObjectEventStore(state.storage.sql, config.events);
      // With the registry, a principal's running tasks are counted across every object.
      this.#tasks = new DurableObjectTaskStore(state, {
        alarm: this.#alarm,
        heartbeatMs,
        registry,
      });
      this.#handler = createMcpHandler(config.server, {
        ...WORKERD_HANDLER_OPTIONS,
        ...options,
        // Sessions are recorded in the deployment's registry (when there is one) as they open and close.
        onSessionOpen: (event) => {
          if (registry) void report(registry, 'open', event.sessionId);
          options.onSessionOpen?.(event);
        },
        onSessionClose: (event) => {
          if (registry) void report(registry, 'close', event.sessionId);
          // Tasks bound to the session (no principal) can no longer be reached: the core has
          // ended them, and their records go; a principal's tasks stay until their TTL.
          this.#tasks.forget(`s:${event.sessionId}`);
          options.onSessionClose?.(event);
        },
        legacy: true,
        sessions: this.#manager,
        eventStore: this.#events,
        tasks: config.tasks === false ? false : { ...taskOptions, store: this.#tasks },
      });
    }

    async fetch(request: Request): Promise<Response> {
      // Operator calls come from the Worker's own code (`sessionControl`); the session Worker only
      // ever forwards requests for the MCP path, so a client cannot reach these.
      if (request.url.startsWith(CONTROL)) return this.#control(request);
      // The session Worker has routed the request here: the handler's own path check is moot,
      // and the principal it authenticated (if it did) comes along.
      const answer = await this.#handler[HANDLE](withClient(request), true, givenOf(request));
      return toWebResponse(answer);
    }

    async #control(request: Request): Promise<Response> {
      const url = new URL(request.url);
      const as = url.searchParams.get('as') ?? undefined;
      if (url.pathname === '/inspect') return Response.json(await this.inspect(as));
      // The session Worker making room at a cap: an idle session goes, a busy one stays.
      if (url.pathname === '/evict') return Response.json({ gone: await this.#evictIfIdle() });
      if (url.pathname === '/close') {
        const reason = (url.searchParams.get('reason') ?? 'session-deleted') as AbortReasonType;
        return Response.json({ closed: await this.closeSession(reason, as) });
      }
      return new Response(null, { status: 404 });
    }

    alarm(): Promise<void> {
      return this.#alarm.fire();
    }

    /** The object's session, restored from storage if this instance has not served it yet. */
    async #session(): Promise<Session | undefined> {
      const id = this.#store.sessionId;
      return id === undefined ? undefined : await this.#manager.get(id);
    }

    /** True when the object holds no session now: it had none, or its idle one was evicted. */
    async #evictIfIdle(): Promise<boolean> {
      const session = await this.#session();
      if (!session) return true;
      // `active` counts the session's requests in flight and its open streams.
      if (session.active > 0) return false;
      await this.#manager.close(session.id, 'session-evicted');
      return true;
    }

    async closeSession(
      reason: AbortReasonType = 'session-deleted',
      asPrincipal?: string,
    ): Promise<boolean> {
      const session = await this.#session();
      if (!session || (asPrincipal !== undefined && session.owner !== asPrincipal)) return false;
      return this.#manager.close(session.id, reason);
    }

    async inspect(asPrincipal?: string): Promise<SessionInspection> {
      const live = await this.#session();
      const session = live?.id;
      const owner = live?.owner;
      if (asPrincipal !== undefined && owner !== asPrincipal)
        return {
          session: undefined,
          owner: undefined,
          events: 0,
          bytes: 0,
          reaped: 0,
          tasks: 0,
          activeTasks: 0,
        };
      const tasks = this.#tasks.usage();
      return {
        session,
        owner,
        ...this.#events.usage(),
        reaped: this.#manager.reaped,
        tasks: tasks.tasks,
        activeTasks: tasks.active,
      };
    }
  };
}
