/**
 * A session's record as the hash `<ns>:{<sid>}:s` holds it: one field per
 * subscription and per state entry, so concurrent writers on two instances both land (the last
 * writer wins per field, as a `Map` does in one process). Changes become field operations,
 * coalesced per replica (`FieldOps`).
 */
import type { AbortReasonType, LogLevel } from '@edge-mcp/core';
import type { SessionChange, SessionInit, SessionRecord } from '@edge-mcp/core/sessions';
import { SESSION_FIELDS as F } from './keys.ts';
import type { RedisArg, RedisReply } from './redis-types.ts';

const REASONS: ReadonlySet<string> = new Set<AbortReasonType>([
  'session-deleted',
  'session-expired',
  'session-evicted',
  'shutdown',
]);

/** A tombstone's reason; `session-expired` without one (it lapsed, or the backstop TTL ran out). */
export function reasonOf(tombstone: RedisReply | undefined): AbortReasonType {
  return typeof tombstone === 'string' && REASONS.has(tombstone)
    ? (tombstone as AbortReasonType)
    : 'session-expired';
}

/** The fields a new session's hash starts with (besides the version and creation time). */
export function initFields(init: SessionInit): RedisArg[] {
  const fields: RedisArg[] = [F.protocolVersion, init.protocolVersion];
  fields.push(F.capabilities, JSON.stringify(init.clientCapabilities ?? {}));
  if (init.clientInfo !== undefined) fields.push(F.clientInfo, JSON.stringify(init.clientInfo));
  if (init.owner !== undefined) fields.push(F.owner, init.owner);
  return fields;
}

/** A stored record: the session's record and its version. */
export interface StoredRecord {
  record: SessionRecord;
  version: number;
}

/** `HGETALL`'s flat `[field, value, …]` as a record; `undefined` when it is not one. */
export function decodeRecord(id: string, reply: readonly RedisReply[]): StoredRecord | undefined {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < reply.length; i += 2) fields.set(String(reply[i]), String(reply[i + 1]));
  const version = Number(fields.get(F.version));
  const protocolVersion = fields.get(F.protocolVersion);
  if (!Number.isFinite(version) || protocolVersion === undefined) return undefined;
  const subscriptions: string[] = [];
  const state: Array<[string, unknown]> = [];
  for (const [name, value] of fields) {
    if (name.startsWith(F.subscription)) subscriptions.push(name.slice(F.subscription.length));
    else if (name.startsWith(F.state)) state.push([name.slice(F.state.length), parse(value)]);
  }
  return {
    version,
    record: identity(id, protocolVersion, fields.get(F.clientInfo), fields.get(F.capabilities), {
      owner: fields.get(F.owner),
      initialized: fields.get(F.initialized) === '1',
      logLevel: (fields.get(F.logLevel) || undefined) as LogLevel | undefined,
      subscriptions,
      state,
    }),
  };
}

/**
 * A record from the identity fields an ending script returns (`pv`, `ci`, `cc`, `ow`): enough
 * for the handler's `closed()` (hooks, `onSessionClose`) of a session this instance holds no
 * replica of.
 */
export function endedRecord(
  id: string,
  pv: string,
  ci: string,
  cc: string,
  ow: string,
): SessionRecord {
  return identity(id, pv, ci || undefined, cc || undefined, { owner: ow || undefined });
}

function identity(
  id: string,
  protocolVersion: string,
  clientInfo: string | undefined,
  capabilities: string | undefined,
  rest: Partial<SessionRecord>,
): SessionRecord {
  return {
    id,
    protocolVersion: protocolVersion as SessionInit['protocolVersion'],
    clientInfo:
      clientInfo === undefined ? undefined : (parse(clientInfo) as SessionInit['clientInfo']),
    clientCapabilities: (capabilities === undefined
      ? {}
      : parse(capabilities)) as SessionInit['clientCapabilities'],
    owner: rest.owner,
    initialized: rest.initialized ?? false,
    logLevel: rest.logLevel,
    subscriptions: rest.subscriptions ?? [],
    state: rest.state ?? [],
    nextStream: 1,
    nextRequest: 1,
    lastActive: Date.now(),
  };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One field operation: set (`H`), delete (`D`). */
type FieldOp = readonly ['H', string] | readonly ['D'];

/**
 * The field operations of a replica not yet written, with the meaning of applying them in order:
 * a clear of a prefix removes the earlier operations under it; the last operation per field wins.
 */
export class FieldOps {
  readonly #clears = new Set<string>();
  readonly #fields = new Map<string, FieldOp>();

  get empty(): boolean {
    return this.#clears.size === 0 && this.#fields.size === 0;
  }

  set(field: string, value: string): void {
    this.#fields.set(field, ['H', value]);
  }

  delete(field: string): void {
    this.#fields.set(field, ['D']);
  }

  /** Every field starting with `prefix` goes (those set before in this batch too). */
  clear(prefix: string): void {
    this.#clears.add(prefix);
    for (const field of [...this.#fields.keys()])
      if (field.startsWith(prefix)) this.#fields.delete(field);
  }

  /** Applies `later`'s operations after this batch's. */
  merge(later: FieldOps): void {
    for (const prefix of later.#clears) this.clear(prefix);
    for (const [field, op] of later.#fields) this.#fields.set(field, op);
  }

  /** The write script's `op, field, value` triples: clears first, then the fields. */
  args(): RedisArg[] {
    const args: RedisArg[] = [];
    for (const prefix of this.#clears) args.push('C', prefix, '');
    for (const [field, op] of this.#fields) args.push(op[0], field, op[0] === 'H' ? op[1] : '');
    return args;
  }
}

/**
 * Adds `change` of a session's `record` to `ops`; false when a state value is not JSON (it stays
 * in this instance's copy only). Without a change, the whole record is written.
 */
export function addChange(ops: FieldOps, record: SessionRecord, change?: SessionChange): boolean {
  switch (change?.kind) {
    case 'initialized':
      ops.set(F.initialized, record.initialized ? '1' : '0');
      return true;
    case 'logLevel':
      if (record.logLevel === undefined) ops.delete(F.logLevel);
      else ops.set(F.logLevel, record.logLevel);
      return true;
    case 'subscription': {
      const field = F.subscription + change.uri;
      if (record.subscriptions.includes(change.uri)) ops.set(field, '1');
      else ops.delete(field);
      return true;
    }
    case 'state': {
      const entry = record.state.find(([key]) => key === change.key);
      if (entry) return addState(ops, change.key, entry[1]);
      ops.delete(F.state + change.key);
      return true;
    }
    case 'state-cleared':
      ops.clear(F.state);
      return true;
    case 'counters':
      // Ids come from the instance (`session.ids`): no counter is stored.
      return true;
    default: {
      ops.set(F.initialized, record.initialized ? '1' : '0');
      if (record.logLevel === undefined) ops.delete(F.logLevel);
      else ops.set(F.logLevel, record.logLevel);
      ops.clear(F.subscription);
      for (const uri of record.subscriptions) ops.set(F.subscription + uri, '1');
      ops.clear(F.state);
      let json = true;
      for (const [key, value] of record.state) json = addState(ops, key, value) && json;
      return json;
    }
  }
}

function addState(ops: FieldOps, key: string, value: unknown): boolean {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) return false;
  ops.set(F.state + key, text);
  return true;
}
