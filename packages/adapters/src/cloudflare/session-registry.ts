import type { DurableObjectNamespace, DurableObjectState } from './workers-types.ts';

const REGISTRY = 'https://edge-mcp.registry';

/** How many sessions the registry offers for eviction when a cap is reached. */
const CANDIDATES = 4;

/**
 * An admission whose session was never confirmed (the Worker died between the two) is offered
 * for eviction after this long; before it, its `initialize` may still be on its way.
 */
const UNCONFIRMED_MS = 30_000;

/** What the Worker asks the registry before a new session object opens a session. */
export interface AdmitRequest {
  /** The new object's id (64 hex digits). */
  object: string;
  principal: string;
  maxSessions: number;
  maxSessionsPerPrincipal: number;
  /** Objects that no longer hold a session (the Worker just evicted them, or found them empty). */
  released?: string[];
}

/** A Durable Object task store asking for a place for a new task of `binding`. */
export interface TaskAsk {
  id: string;
  binding: string;
  /** The binding's running tasks at most (`tasks.maxActivePerPrincipal`). */
  max: number;
  /** The task's TTL end: it stops counting then, whatever became of its object. */
  expiresAt: number;
}

/** The registry's verdict: admitted, or the cap reached and the sessions that might make room. */
export type AdmitVerdict =
  | { admitted: true }
  | { admitted: false; scope: 'principal' | 'server'; limit: number; candidates: string[] };

/**
 * The live sessions of a deployment, in one Durable Object: so an operator can end them all
 * (`sessionControl(...).closeAll()`), and, when the session Worker is given it, so every
 * `initialize` is admitted against the deployment's cap and the principal's quota. A check and the
 * admission it allows are one synchronous step of this single object, so two racing initializes
 * never both take the last place. Session objects report opens and closes to it when
 * `defineSessionObject` is given it; without it nothing is recorded.
 *
 * Storage layout: `mcp_sessions(id TEXT PRIMARY KEY, opened INTEGER)` lists session ids;
 * `mcp_admitted(object TEXT PRIMARY KEY, principal TEXT, opened INTEGER, confirmed INTEGER)`
 * holds one row per object admitted to hold a session (indexed by principal), confirmed once the
 * session exists, deleted when it ends; `mcp_tasks(id, binding, expires)` holds the running tasks
 * of every object, when the objects' task stores are given the registry.
 */
export class SessionRegistry {
  readonly #state: DurableObjectState;

  constructor(state: DurableObjectState) {
    this.#state = state;
    const sql = state.storage.sql;
    sql.exec(
      'CREATE TABLE IF NOT EXISTS mcp_sessions (id TEXT PRIMARY KEY, opened INTEGER NOT NULL)',
    );
    sql.exec(
      'CREATE TABLE IF NOT EXISTS mcp_admitted (object TEXT PRIMARY KEY, principal TEXT NOT NULL, opened INTEGER NOT NULL, confirmed INTEGER NOT NULL DEFAULT 0)',
    );
    sql.exec(
      'CREATE INDEX IF NOT EXISTS mcp_admitted_principal ON mcp_admitted (principal, opened)',
    );
    sql.exec('CREATE INDEX IF NOT EXISTS mcp_admitted_opened ON mcp_admitted (opened)');
    sql.exec(
      'CREATE TABLE IF NOT EXISTS mcp_tasks (id TEXT PRIMARY KEY, binding TEXT NOT NULL, expires INTEGER NOT NULL)',
    );
    sql.exec('CREATE INDEX IF NOT EXISTS mcp_tasks_binding ON mcp_tasks (binding, expires)');
    sql.exec('CREATE INDEX IF NOT EXISTS mcp_tasks_expires ON mcp_tasks (expires)');
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
      // The session exists: from now on it may be evicted when idle.
      sql.exec(
        'UPDATE mcp_admitted SET confirmed = 1 WHERE object = ?',
        (url.searchParams.get('id') ?? '').slice(0, 64),
      );
      return new Response(null, { status: 204 });
    }
    if (request.method === 'POST' && url.pathname === '/close') {
      const id = url.searchParams.get('id') ?? '';
      sql.exec('DELETE FROM mcp_sessions WHERE id = ?', id);
      // A session id starts with its object's id: the object's admission ends with it.
      sql.exec('DELETE FROM mcp_admitted WHERE object = ?', id.slice(0, 64));
      return new Response(null, { status: 204 });
    }
    if (request.method === 'POST' && url.pathname === '/admit')
      return Response.json(this.#admit((await request.json()) as AdmitRequest));
    if (request.method === 'POST' && url.pathname === '/task')
      return Response.json({ admitted: this.#admitTask((await request.json()) as TaskAsk) });
    if (request.method === 'POST' && url.pathname === '/task-end') {
      sql.exec('DELETE FROM mcp_tasks WHERE id = ?', url.searchParams.get('id'));
      return new Response(null, { status: 204 });
    }
    if (request.method === 'POST' && url.pathname === '/release') {
      this.#release((await request.json()) as string[]);
      return new Response(null, { status: 204 });
    }
    if (url.pathname === '/list') {
      const rows = sql
        .exec<{ id: string }>('SELECT id FROM mcp_sessions ORDER BY opened')
        .toArray();
      return Response.json(rows.map((row) => row.id));
    }
    if (url.pathname === '/count') {
      const principal = url.searchParams.get('principal');
      return Response.json(principal === null ? this.#count() : this.#count(principal));
    }
    return new Response(null, { status: 404 });
  }

  /** One synchronous step: forget the released, check both caps, admit or name candidates. */
  #admit(ask: AdmitRequest): AdmitVerdict {
    const sql = this.#state.storage.sql;
    if (ask.released) this.#release(ask.released);
    if (this.#count(ask.principal) >= ask.maxSessionsPerPrincipal)
      return {
        admitted: false,
        scope: 'principal',
        limit: ask.maxSessionsPerPrincipal,
        // Only the principal's own sessions: a client at its quota never pushes another out.
        candidates: this.#oldest(
          `SELECT object FROM mcp_admitted WHERE principal = ? AND ${EVICTABLE} ORDER BY opened LIMIT ?`,
          ask.principal,
        ),
      };
    if (this.#count() >= ask.maxSessions)
      return {
        admitted: false,
        scope: 'server',
        limit: ask.maxSessions,
        candidates: this.#oldest(
          `SELECT object FROM mcp_admitted WHERE ${EVICTABLE} ORDER BY opened LIMIT ?`,
          undefined,
        ),
      };
    sql.exec(
      'INSERT OR REPLACE INTO mcp_admitted (object, principal, opened) VALUES (?, ?, ?)',
      ask.object,
      ask.principal,
      Date.now(),
    );
    return { admitted: true };
  }

  /**
   * One synchronous step: forget tasks past their TTL, count the binding's running tasks, take a
   * place if one is left. A task that ends tells the registry (`/task-end`); one whose object was
   * lost stops counting at its TTL.
   */
  #admitTask(ask: TaskAsk): boolean {
    const sql = this.#state.storage.sql;
    const now = Date.now();
    sql.exec('DELETE FROM mcp_tasks WHERE expires <= ?', now);
    const running = sql
      .exec<{ n: number }>('SELECT COUNT(*) AS n FROM mcp_tasks WHERE binding = ?', ask.binding)
      .one().n;
    if (running >= ask.max) return false;
    sql.exec(
      'INSERT OR REPLACE INTO mcp_tasks (id, binding, expires) VALUES (?, ?, ?)',
      ask.id,
      ask.binding,
      ask.expiresAt,
    );
    return true;
  }

  #release(objects: string[]): void {
    for (const object of objects.slice(0, 64))
      this.#state.storage.sql.exec('DELETE FROM mcp_admitted WHERE object = ?', object);
  }

  #count(principal?: string): number {
    const sql = this.#state.storage.sql;
    const rows =
      principal === undefined
        ? sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM mcp_admitted')
        : sql.exec<{ n: number }>(
            'SELECT COUNT(*) AS n FROM mcp_admitted WHERE principal = ?',
            principal,
          );
    return rows.one().n;
  }

  /** Admissions a query finds (oldest first), among the confirmed and the long unconfirmed. */
  #oldest(query: string, principal: string | undefined): string[] {
    const sql = this.#state.storage.sql;
    const before = Date.now() - UNCONFIRMED_MS;
    const rows =
      principal === undefined
        ? sql.exec<{ object: string }>(query, before, CANDIDATES)
        : sql.exec<{ object: string }>(query, principal, before, CANDIDATES);
    return rows.toArray().map((row) => row.object);
  }
}

/** The admissions that may be evicted (its parameter: the unconfirmed cut-off). */
const EVICTABLE = '(confirmed = 1 OR opened < ?)';

/** The registry's single object. */
function registryStub(namespace: DurableObjectNamespace) {
  return namespace.get(namespace.idFromName('sessions'));
}

function post(namespace: DurableObjectNamespace, path: string, body?: unknown) {
  return registryStub(namespace).fetch(
    new Request(`${REGISTRY}${path}`, {
      method: 'POST',
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

/** Records an opened or closed session (from a session object; failures are not fatal). */
export function report(
  namespace: DurableObjectNamespace,
  what: 'open' | 'close',
  id: string,
): Promise<void> {
  return post(namespace, `/${what}?id=${encodeURIComponent(id)}`).then(
    () => undefined,
    () => undefined,
  );
}

/** Asks to admit a new session object (the session Worker, before an `initialize`). */
export async function admit(
  namespace: DurableObjectNamespace,
  ask: AdmitRequest,
): Promise<AdmitVerdict> {
  return (await (await post(namespace, '/admit', ask)).json()) as AdmitVerdict;
}

/** Whether a new task may start: the registry counts every object's running tasks. */
export async function admitTask(namespace: DurableObjectNamespace, ask: TaskAsk): Promise<boolean> {
  return ((await (await post(namespace, '/task', ask)).json()) as { admitted: boolean }).admitted;
}

/** A task counted by `admitTask` ended (failures are not fatal: it stops counting at its TTL). */
export function taskEnded(namespace: DurableObjectNamespace, id: string): Promise<void> {
  return post(namespace, `/task-end?id=${encodeURIComponent(id)}`).then(
    () => undefined,
    () => undefined,
  );
}

/** Forgets admissions whose objects hold no session (an `initialize` that opened none). */
export async function release(namespace: DurableObjectNamespace, objects: string[]): Promise<void> {
  await post(namespace, '/release', objects);
}

export async function listSessions(namespace: DurableObjectNamespace): Promise<string[]> {
  return (await (
    await registryStub(namespace).fetch(new Request(`${REGISTRY}/list`))
  ).json()) as string[];
}
