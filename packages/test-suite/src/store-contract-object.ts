/**
 * The session-store contract inside workerd: one Durable Object per case, whose fetch runs the
 * case on `DurableObjectSessionStore` over the object's real storage and alarm (a "restart" is a
 * second store and alarm over the same storage) and answers `{ ok }` or the failure.
 * test/durable-object-store.test.ts asks for each case that applies to a one-session store.
 */
import {
  DurableObjectSessionStore,
  type DurableObjectState,
  ObjectAlarm,
  WORKERD_HANDLER_OPTIONS,
} from '@edge-mcp/adapters/cloudflare';
import { createMcpHandler, McpServer } from '@edge-mcp/core';
import { SessionManager } from '@edge-mcp/core/sessions';
import { type SessionStoreTarget, sessionStoreContract } from '@edge-mcp/test-kit';

/** The two tools the contract calls. */
function contractServer(): McpServer {
  const server = new McpServer({ name: 'store-contract', version: '1.0.0' });
  server.tool('remember', {}, (args, ctx) => {
    ctx.session?.state.set('value', (args as { value?: unknown }).value);
    return 'kept';
  });
  server.tool('recall', {}, (_args, ctx) => String(ctx.session?.state.get('value') ?? ''));
  return server;
}

export class StoreContract {
  readonly #state: DurableObjectState;
  /** The alarm of the newest store: the object's alarm() fires it. */
  #alarm: ObjectAlarm | undefined;

  constructor(state: DurableObjectState) {
    this.#state = state;
  }

  #newStore(): DurableObjectSessionStore {
    this.#alarm = new ObjectAlarm(this.#state);
    return new DurableObjectSessionStore(this.#state, { alarm: this.#alarm });
  }

  async fetch(request: Request): Promise<Response> {
    const name = new URL(request.url).searchParams.get('case');
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
    try {
      await found.run(target as SessionStoreTarget<unknown>);
      return Response.json({ ok: true });
    } catch (error) {
      return Response.json({ ok: false, error: String(error) });
    }
  }

  alarm(): Promise<void> {
    return this.#alarm?.fire() ?? Promise.resolve();
  }
}
