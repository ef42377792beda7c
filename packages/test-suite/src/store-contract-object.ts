/**
 * The store contracts inside workerd: one Durable Object per case, whose fetch runs the case on
 * the object's real storage and alarm and answers `{ ok }` or the failure: sessions on
 * `DurableObjectSessionStore` (a "restart" is a second store and alarm over the same storage),
 * events (`?contract=events`) on `DurableObjectEventStore`, tasks (`?contract=tasks`) on
 * `DurableObjectTaskStore` with the deployment's registry. test/durable-object-store.test.ts
 * asks for each case that applies to a one-session store.
 */
import {
  DurableObjectEventStore,
  type DurableObjectNamespace,
  DurableObjectSessionStore,
  type DurableObjectState,
  DurableObjectTaskStore,
  ObjectAlarm,
  WORKERD_HANDLER_OPTIONS,
} from '@edge-mcp/adapters/cloudflare';
import { createMcpHandler, McpServer } from '@edge-mcp/core';
import { SessionManager } from '@edge-mcp/core/sessions';
import {
  CONTRACT_TOOLS,
  eventStoreContract,
  type SessionStoreTarget,
  sessionStoreContract,
  taskStoreContract,
} from '@edge-mcp/test-kit';

/** The server of the contract: its two tools. */
function contractServer(): McpServer {
  const server = new McpServer({ name: 'store-contract', version: '1.0.0' });
  for (const [name, handler] of CONTRACT_TOOLS) server.tool(name, {}, handler);
  return server;
}

/** `{ ok }`, or the failure. */
async function outcome(run: Promise<void>): Promise<Response> {
  try {
    await run;
    return Response.json({ ok: true });
  } catch (error) {
    return Response.json({ ok: false, error: String(error) });
  }
}

export class StoreContract {
  readonly #state: DurableObjectState;
  /** The alarm of the newest store: the object's alarm() fires it. */
  #alarm: ObjectAlarm | undefined;

  readonly #registry: DurableObjectNamespace;

  constructor(state: DurableObjectState, env: { SESSION_REGISTRY: DurableObjectNamespace }) {
    this.#state = state;
    this.#registry = env.SESSION_REGISTRY;
  }

  #newAlarm(): ObjectAlarm {
    this.#alarm = new ObjectAlarm(this.#state);
    return this.#alarm;
  }

  #newStore(): DurableObjectSessionStore {
    return new DurableObjectSessionStore(this.#state, { alarm: this.#newAlarm() });
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const name = url.searchParams.get('case');
    if (url.searchParams.get('contract') === 'events') {
      const found = eventStoreContract.find((c) => c.name === name);
      if (!found) return Response.json({ ok: false, error: `no case ${name}` }, { status: 404 });
      const sql = this.#state.storage.sql;
      return outcome(
        found.run({
          single: true,
          store: (maxEvents) => new DurableObjectEventStore(sql, { maxEvents }),
        }),
      );
    }
    if (url.searchParams.get('contract') === 'tasks') {
      const found = taskStoreContract.find((c) => c.name === name);
      if (!found) return Response.json({ ok: false, error: `no case ${name}` }, { status: 404 });
      // Unfinished tasks are counted in the deployment's registry (`maxActive`).
      const store = () =>
        new DurableObjectTaskStore(this.#state, {
          alarm: this.#newAlarm(),
          registry: this.#registry,
        });
      return outcome(found.run({ store }));
    }
    const found = sessionStoreContract.find((c) => c.name === name);
    if (!found) return Response.json({ ok: false, error: `no case ${name}` }, { status: 404 });
    const target: SessionStoreTarget<DurableObjectSessionStore> = {
      single: true,
      store: () => this.#newStore(),
      reopen: () => this.#newStore(),
      handler: (store, options) =>
        createMcpHandler(contractServer(), {
          ...WORKERD_HANDLER_OPTIONS,
          sessions: new SessionManager({ store, idleTimeoutMs: options.idleTimeoutMs }),
          eventStore: false,
          onSessionClose: (event) => options.onSessionClose(String(event.reason)),
        }),
    };
    return outcome(found.run(target as SessionStoreTarget<unknown>));
  }

  alarm(): Promise<void> {
    return this.#alarm?.fire() ?? Promise.resolve();
  }
}
