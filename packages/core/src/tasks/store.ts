import type { AuthInfo } from '../auth/auth-info.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { ClientCapabilities, Implementation, InputRequest } from '../server/types.ts';

/** Where a task is: `working` ⇄ `input_required`, then one of the three terminal states. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** Whether a status is final (a terminal task never changes again). */
export function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/**
 * One task as a store keeps it: plain JSON, the same for both protocol eras (each era projects it
 * onto its own wire shape).
 */
export interface TaskRecord {
  readonly id: string;
  /** Who may see it: `p:<principal>` when authenticated, `s:<session id>` for a legacy session, else ''. */
  readonly binding: string;
  status: TaskStatus;
  statusMessage?: string | undefined;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  updatedAt: number;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** When the store forgets it (`createdAt + ttlMs`). */
  readonly expiresAt: number;
  /** The tool it runs. */
  readonly tool: string;
  /** The legacy session that created it, for its status notifications. */
  readonly sessionId?: string | undefined;
  /** Input requests outstanding, by wire key (status `input_required`). */
  inputRequests?: Record<string, InputRequest> | undefined;
  /** Every input key ever issued (a key is never reused). */
  issuedKeys: string[];
  /** The tool's result (status `completed`). */
  result?: JsonObject | undefined;
  /** The protocol error (status `failed`). */
  error?: { code: number; message: string; data?: unknown } | undefined;
  /**
   * The runner holding it (an engine's id): a non-terminal task whose runner is gone lost it. ''
   * while it is queued, waiting for a runner to claim it (`tasks: { run: 'workers' }`, or released
   * by a runner that shut down).
   */
  runner: string;
  /**
   * The fencing token of the runner's hold: one more each time a runner claims the task or lets
   * it go. A runner's writes carry the token it claimed with, and a store refuses a write whose
   * token is not the current one: two runners never both complete a task. @default 1
   */
  fence?: number | undefined;
  /** Runs begun so far (a queued task that never ran: 0). @default 1 */
  attempts?: number | undefined;
  /** The most runs its tool allows (`retry`, `idempotentHint`): past it a lost runner fails it. @default 1 */
  maxAttempts?: number | undefined;
  /** What it takes another runner to run the call again (`StoredCall`). */
  call?: StoredCall | undefined;
  /**
   * Answers to input requests the runner has not taken yet (a `tasks/update` that landed on
   * another instance than the runner's), by wire key. Kept for the task's life: a run that
   * starts again finds its input answered.
   */
  answers?: Record<string, JsonObject> | undefined;
  /**
   * Its last input was answered and its runner has not yet gone on with it (set by `tasks/update`,
   * cleared by the runner as its handler resumes): a run lost in between may start again with
   * the answers given, as one lost in `input_required` may.
   */
  answered?: true | undefined;
}

/**
 * A tool call as a task keeps it, so that any runner can start it again: the arguments and the
 * caller as the request presented it (the verified principal and scopes, never a token).
 */
export interface StoredCall {
  readonly arguments: JsonObject;
  readonly protocolVersion: string;
  readonly clientInfo?: Implementation | undefined;
  readonly clientCapabilities: ClientCapabilities;
  readonly auth?: AuthInfo | undefined;
  /** The client address or principal the call counted against. */
  readonly client?: string | undefined;
  /** The URL the request addressed. */
  readonly url: string;
}

/** What the engine lends its store when it binds it. */
export interface TaskHost {
  /** A task reached its TTL and was forgotten: a handler still running for it must stop. */
  expired(id: string): void;
  /**
   * A task was changed by another instance (status, input requests, answers, a cancel): the
   * engine reads it again if it runs or watches it here. Stores shared by instances call it.
   */
  changed?(id: string): void;
  /**
   * Task `id` may have no live runner (its runner's lease lapsed, or it is queued): the engine
   * claims it if it may run it, or answers it `failed`. Stores that find such tasks (a sweep of
   * leases, a restarted Durable Object) call it.
   */
  orphaned?(id: string): void;
}

/**
 * Where tasks live (like `SessionManager` and `EventStore`). `create` resolves only once the task
 * is durable and visible to `get` from anywhere: a client is told about a task only then. Every
 * method may answer with a promise (a remote store); the memory store answers at once.
 */
export interface TaskStore {
  /**
   * One engine serves the store at a time (memory, a Durable Object): a non-terminal task whose
   * runner is another engine lost it to a restart, and is answered `failed` rather than left
   * `working` for ever. A store shared by live instances (Redis) says which runners are alive
   * instead (`runner`, `alive`).
   */
  readonly exclusive: boolean;
  /**
   * The runner id the engine records in its tasks (a shared store keeps it alive, e.g. with a
   * heartbeat per instance). @default a fresh id per engine
   */
  readonly runner?: string;
  /**
   * Whether a runner is alive (stores that are not exclusive): an unfinished task of a dead
   * runner is answered `failed`. Without it, another runner is taken to be alive.
   */
  alive?(runner: string): boolean | Promise<boolean>;
  bind(host: TaskHost): void;
  /**
   * A fresh task id for a task of `binding`, when the store decides them (a Durable Object store
   * embeds its object's id so a Worker can route `tasks/*` by it; a sharded Redis store, the
   * partition of the binding). At least 128 bits of randomness: without auth the id is the only
   * secret. @default newTaskId()
   */
  newId?(binding: string): string;
  /**
   * Stores a new task. With `maxActive`, throws `TaskLimitError` instead when the record's
   * binding has that many unfinished tasks already: atomically, where instances share the store
   * (two instances must not both create the last one a principal may have).
   */
  create(record: TaskRecord, maxActive?: number): void | Promise<void>;
  /** The task, unless unknown or expired. */
  get(id: string): TaskRecord | undefined | Promise<TaskRecord | undefined>;
  /**
   * Applies `patch` unless the task is terminal (a terminal task never changes: the first
   * terminal write wins, a cancel stays a cancel) or, with `fence`, unless the task's fencing
   * token is another (`fenced()`): atomically, where instances share the store. The record after
   * it, or `undefined` when the task is unknown. Applied or not, the current record comes back.
   */
  update(
    id: string,
    patch: Partial<TaskRecord>,
    fence?: number,
  ): TaskRecord | undefined | Promise<TaskRecord | undefined>;
  /** A binding's tasks, newest first, one page at a time. */
  list(
    binding: string,
    cursor: string | undefined,
    limit: number,
  ):
    | { records: TaskRecord[]; nextCursor?: string | undefined }
    | Promise<{ records: TaskRecord[]; nextCursor?: string | undefined }>;
  /** Non-terminal tasks of a binding. */
  countActive(binding: string): number | Promise<number>;
}

/** Whether a write guarded by `fence` may change `record` (its token is still `fence`). */
export function fenced(record: TaskRecord, fence: number | undefined): boolean {
  return fence === undefined || (record.fence ?? 1) === fence;
}

/** The store is full of tasks still running: no new one can be created. */
export class TaskLimitError extends Error {
  override readonly name = 'TaskLimitError';
}

/** A fresh task id: 128 random bits, base64url (unguessable: without auth it is the only secret). */
export function newTaskId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}
