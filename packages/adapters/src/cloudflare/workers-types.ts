/**
 * The few Workers runtime types the Cloudflare adapter uses, declared here so the adapter
 * type-checks without the full workers-types (which conflict with the DOM lib the core uses).
 */

export interface SqlCursor<T> extends Iterable<T> {
  toArray(): T[];
  one(): T;
  /** Rows the statement changed (so far, for a cursor not yet read to its end). */
  readonly rowsWritten: number;
}

export interface SqlStorage {
  exec<T = Record<string, unknown>>(query: string, ...bindings: unknown[]): SqlCursor<T>;
}

export interface SyncKvStorage {
  get<T = unknown>(key: string): T | undefined;
  put<T>(key: string, value: T): void;
  delete(key: string): boolean;
  list<T = unknown>(options?: { prefix?: string }): Iterable<[string, T]>;
}

export interface DurableObjectStorage {
  sql: SqlStorage;
  kv: SyncKvStorage;
  deleteAll(): Promise<void>;
  setAlarm(scheduledTime: number | Date): Promise<void>;
  getAlarm(): Promise<number | null>;
  deleteAlarm(): Promise<void>;
}

export interface DurableObjectId {
  toString(): string;
}

export interface DurableObjectState {
  readonly id: DurableObjectId;
  readonly storage: DurableObjectStorage;
  blockConcurrencyWhile<T>(fn: () => Promise<T>): Promise<T>;
}

export interface DurableObjectStub {
  fetch(request: Request): Promise<Response>;
}

export interface DurableObjectNamespace {
  newUniqueId(): DurableObjectId;
  idFromString(id: string): DurableObjectId;
  idFromName(name: string): DurableObjectId;
  get(id: DurableObjectId): DurableObjectStub;
}
