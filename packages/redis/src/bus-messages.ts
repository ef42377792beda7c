/**
 * What travels on the bus, and how it is encoded: one JSON object per message,
 * `{"v":1,"o":"<sender tag>","k":"<kind>", …fields}`. Scripts that publish (`closed`, `task`)
 * build the same object with `cjson.encode`. A message of another version or of an unknown kind
 * (a rolling deploy of a later edge-mcp) is ignored and reported.
 */

/** The encoding's version: `v` of every message. */
export const BUS_VERSION = 1;

type RequestId = string | number;

/** Every message kind and its fields (besides `v`, `o`, `k`). */
export interface BusMessages {
  /** `notifications/cancelled` for a request that does not run on the receiving instance. */
  cancel: { s: string; r: RequestId };
  /** A session ended (DELETE, expiry, eviction): replicas elsewhere are aborted and released. */
  closed: { s: string; reason: string };
  /**
   * A session's subscriptions changed on another instance (published by the write script to the
   * instance homing its standalone stream, whose replica must see them for resource updates).
   */
  stale: { s: string };
  /** The operator ended every session. */
  closeAll: { reason: string };
  /** A client's answer to a server→client request, for the instance that asked. */
  resp: {
    s: string;
    id: RequestId;
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: unknown };
  };
  /** A relay asks a stream's holder to forward it (link nonce `n`). */
  attach: { s: string; st: string; n: string; from: string };
  /** The holder's answer: whether it still has the stream live, and its newest event id. */
  ack: { s: string; st: string; n: string; live: boolean; lastId?: string };
  /** One forwarded event (`id` absent: it could not be stored; `f`: the stream's final). */
  ev: { s: string; st: string; n: string; id?: string; m: string; f?: boolean };
  /** The holder ended the stream without a final message. */
  end: { s: string; st: string; n: string };
  /** The relay's client left. */
  detach: { s: string; st: string; n: string; why: 'disconnect' | 'stream-overflow' };
  /** A list changed (`tools`, `resources`, `prompts`). */
  list: { l: string };
  /** A resource was updated. */
  res: { u: string };
  /** A task was written by another instance. */
  task: { t: string; st: string; s?: string };
  /** A task expired (the sweep). */
  taskExp: { t: string };
  /** A task waits for a runner (queued for workers, or let go by a runner that shut down). */
  queued: { t: string };
  /**
   * Nothing to do: sent to an instance whose liveness key is missing, to ask its subscriber
   * whether it lives (sharded: the key's shard may have failed over and lost it).
   */
  ping: Record<never, never>;
}

export type BusKind = keyof BusMessages;

/** A message as sent: its kind and fields. */
export type BusMessage = { [K in BusKind]: { k: K } & BusMessages[K] }[BusKind];

/** A message as received: with the sender's tag and the version. */
export type BusEnvelope<K extends BusKind = BusKind> = {
  v: number;
  o: string;
  k: K;
} & BusMessages[K];

export const BUS_KINDS: ReadonlySet<string> = new Set<BusKind>([
  'cancel',
  'closed',
  'closeAll',
  'stale',
  'resp',
  'attach',
  'ack',
  'ev',
  'end',
  'detach',
  'list',
  'res',
  'task',
  'taskExp',
  'queued',
  'ping',
]);

/** The JSON text of `message` from the instance tagged `origin`. */
export function encodeMessage(origin: string, message: BusMessage): string {
  return JSON.stringify({ v: BUS_VERSION, o: origin, ...message });
}

export type Decoded =
  | { readonly message: BusEnvelope }
  | { readonly ignored: string; readonly kind?: string };

/** Parses a message; `ignored` says why one cannot be used (not JSON, other version, unknown kind). */
export function decodeMessage(text: string): Decoded {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ignored: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ignored: 'not an object' };
  const { v, o, k } = value as { v?: unknown; o?: unknown; k?: unknown };
  const kind = typeof k === 'string' ? k : undefined;
  if (v !== BUS_VERSION)
    return { ignored: `version ${JSON.stringify(v)}`, ...(kind ? { kind } : {}) };
  if (typeof o !== 'string') return { ignored: 'no sender' };
  if (kind === undefined || !BUS_KINDS.has(kind))
    return { ignored: `unknown kind ${JSON.stringify(k)}`, ...(kind ? { kind } : {}) };
  return { message: value as BusEnvelope };
}
