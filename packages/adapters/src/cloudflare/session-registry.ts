import type { DurableObjectNamespace, DurableObjectState } from './workers-types.ts';

const REGISTRY = 'https://edge-mcp.registry';

/**
 * The list of live sessions of a deployment, in one Durable Object, so an operator can end them
 * all (`sessionControl(...).closeAll()`). Session objects report opens and closes to it when the
 * registry is configured; without it nothing is recorded.
 *
 * Storage layout: one table `mcp_sessions(id TEXT PRIMARY KEY, opened INTEGER)`.
 */
export class SessionRegistry {
  readonly #state: DurableObjectState;

  constructor(state: DurableObjectState) {
    this.#state = state;
    state.storage.sql.exec(
      'CREATE TABLE IF NOT EXISTS mcp_sessions (id TEXT PRIMARY KEY, opened INTEGER NOT NULL)',
    );
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const sql = this.#state.storage.sql;
    if (request.method === 'POST' && url.pathname === '/open') {
      sql.exec(
        'INSERT OR REPLACE INTO mcp_sessions (id, opened) VALUES (?, ?)',
        url.searchParams.get('id'),
        Date.now(),
      );
      return new Response(null, { status: 204 });
    }
    if (request.method === 'POST' && url.pathname === '/close') {
      sql.exec('DELETE FROM mcp_sessions WHERE id = ?', url.searchParams.get('id'));
      return new Response(null, { status: 204 });
    }
    if (url.pathname === '/list') {
      const rows = sql
        .exec<{ id: string }>('SELECT id FROM mcp_sessions ORDER BY opened')
        .toArray();
      return Response.json(rows.map((row) => row.id));
    }
    return new Response(null, { status: 404 });
  }
}

/** The registry's single object. */
function registryStub(namespace: DurableObjectNamespace) {
  return namespace.get(namespace.idFromName('sessions'));
}

/** Records an opened or closed session (from a session object; failures are not fatal). */
export function report(
  namespace: DurableObjectNamespace,
  what: 'open' | 'close',
  id: string,
): Promise<void> {
  return registryStub(namespace)
    .fetch(new Request(`${REGISTRY}/${what}?id=${encodeURIComponent(id)}`, { method: 'POST' }))
    .then(
      () => undefined,
      () => undefined,
    );
}

export async function listSessions(namespace: DurableObjectNamespace): Promise<string[]> {
  return (await (
    await registryStub(namespace).fetch(new Request(`${REGISTRY}/list`))
  ).json()) as string[];
}
