/**
 * The session-store contract on the store `docs/stores.md` walks through (a `Map`), and on the
 * core's own in-process sessions (no store: the cases about restarts are left out). Durable
 * Objects run it in workerd (packages/test-suite), Redis on a real redis-server (packages/redis).
 */
import { createMcpHandler, McpServer } from '@edge-mcp/core';
import { SessionManager, type SessionStore } from '@edge-mcp/core/sessions';
import {
  CONTRACT_TOOLS,
  type ContractHandlerOptions,
  runCases,
  type SessionStoreTarget,
  sessionStoreContract,
} from '@edge-mcp/test-kit';
import { describe, test } from 'vitest';
import { MapSessionStore } from '../examples/map-session-store.ts';

/** The server of the contract: its two tools. */
function contractServer(): McpServer {
  const server = new McpServer({ name: 'contract', version: '1.0.0' });
  for (const [name, handler] of CONTRACT_TOOLS) server.tool(name, {}, handler);
  return server;
}

function handlerOver(store: SessionStore | undefined, options: ContractHandlerOptions) {
  return createMcpHandler(contractServer(), {
    sessions: new SessionManager({ store, idleTimeoutMs: options.idleTimeoutMs }),
    eventStore: false,
    onSessionClose: (event) => options.onSessionClose(String(event.reason)),
  });
}

describe('the MapSessionStore of docs/stores.md passes the session-store contract', () => {
  const target: SessionStoreTarget<MapSessionStore> = {
    store: () => new MapSessionStore(),
    reopen: (store) => new MapSessionStore(store.rows),
    handler: handlerOver,
  };
  runCases(test, sessionStoreContract as typeof sessionStoreContract, target as never);
});

describe('sessions in the handler only (no store) pass what applies of it', () => {
  const target: SessionStoreTarget<undefined> = {
    store: () => undefined,
    handler: handlerOver,
  };
  runCases(test, sessionStoreContract, target as never);
});
