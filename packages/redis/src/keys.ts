/**
 * Every Redis key, hash field and pub/sub channel name the package uses, in one
 * place. `<ns>` is the namespace; `{…}` are hash tags, so one session's keys (and one task's)
 * would share a slot if a sharded port ever came; the global index and the broadcast channel
 * need one primary, which is what v1 supports.
 */

/** Fields of the session hash `<ns>:{<sid>}:s`. */
export const SESSION_FIELDS = {
  /** Record version, `HINCRBY` on every write; replicas compare it on each touch. */
  version: 'v',
  protocolVersion: 'pv',
  /** clientInfo, JSON */
  clientInfo: 'ci',
  /** client capabilities, JSON */
  capabilities: 'cc',
  owner: 'ow',
  /** Whose quota the session counts in: its owner, else the client address that opened it. */
  principal: 'pr',
  initialized: 'in',
  logLevel: 'll',
  /** `u:<uri>`: one field per resource subscription */
  subscription: 'u:',
  /** `k:<key>`: one field per state bag entry, its value JSON */
  state: 'k:',
  created: 'ct',
  /** The tag of the standalone stream's home instance. */
  home: 'gh',
  /** The session's event sequence (the last `XADD` id's first part). */
  eventSeq: 'e#',
  /** UTF-8 bytes of the stored events. */
  eventBytes: 'eb',
  /** `q:<stream>`: the request id (JSON) of an unfinished request stream. */
  request: 'q:',
} as const;

/** Fields of an event entry in the stream `<ns>:{<sid>}:e` (entry id `<seq>-0`). */
export const EVENT_FIELDS = {
  stream: 's',
  message: 'm',
  /** `1` on a stream's final message only. */
  final: 'f',
} as const;

/** Fields of the task hash `<ns>:{t:<tid>}`. */
export const TASK_FIELDS = {
  /** The task record, JSON */
  record: 'r',
  version: 'ver',
  status: 'st',
  runner: 'rn',
  binding: 'b',
  /** The prefix of a watcher's field: `w:<instance tag>` (an instance following the task). */
  watcher: 'w:',
} as const;

/** Fields of a rate-limit bucket `<ns>:rl:<key>`. */
export const RATE_FIELDS = {
  /** Tokens left at `at` (a decimal number). */
  tokens: 't',
  /** When `tokens` was written (ms, Redis `TIME`). */
  at: 'a',
} as const;

/** How long a session's tombstone (`…:gone`) is kept: reconciliation reads it. */
export const TOMBSTONE_TTL_MS = 600_000;
/** How long an instance's inbox outlives its last push. */
export const INBOX_TTL_MS = 60_000;
/** Messages an instance's inbox keeps at most (the oldest go first). */
export const INBOX_MAX = 10_000;
/** The liveness key's TTL, in heartbeats. */
export const LIVENESS_HEARTBEATS = 3;

/**
 * The parts of a session's keys after `<ns>:{<sid>}`, and of the names that follow `<ns>`: one
 * home for `RedisKeys` and for the scripts, which build the keys of other sessions (the sweep,
 * the refresh) in Lua with `LUA_KEYS`.
 */
const SESSION_KEY = { record: ':s', events: ':e', gone: ':gone' } as const;
const NAMES = {
  sessions: ':sessions',
  principalSessions: ':ps:',
  broadcast: ':all',
  channel: ':i:',
} as const;

/**
 * Lua functions of the same names, for the scripts: `session_key(ns, id)`, `events_key(ns, id)`,
 * `gone_key(ns, id)`, `index_key(ns)`, `principal_key(ns, principal)`, `broadcast_channel(ns)`,
 * `instance_channel(ns, tag)`.
 */
export const LUA_KEYS = `local function session_part(ns, id, part) return ns .. ':{' .. id .. '}' .. part end
local function session_key(ns, id) return session_part(ns, id, '${SESSION_KEY.record}') end
local function events_key(ns, id) return session_part(ns, id, '${SESSION_KEY.events}') end
local function gone_key(ns, id) return session_part(ns, id, '${SESSION_KEY.gone}') end
local function index_key(ns) return ns .. '${NAMES.sessions}' end
local function principal_key(ns, principal) return ns .. '${NAMES.principalSessions}' .. principal end
local function broadcast_channel(ns) return ns .. '${NAMES.broadcast}' end
local function instance_channel(ns, tag) return ns .. '${NAMES.channel}' .. tag end
`;

/** The default namespace: several deployments may share one Redis with others. */
export const DEFAULT_NAMESPACE = 'edge-mcp';

/** Key and channel names of one namespace. */
export class RedisKeys {
  readonly namespace: string;

  constructor(namespace: string = DEFAULT_NAMESPACE) {
    if (namespace === '' || /[{}\s]/.test(namespace))
      throw new TypeError(
        `Redis namespace ${JSON.stringify(namespace)} must be non-empty, without braces or spaces`,
      );
    this.namespace = namespace;
  }

  /** Hash: the session record (`SESSION_FIELDS`). */
  session(sessionId: string): string {
    return `${this.namespace}:{${sessionId}}${SESSION_KEY.record}`;
  }

  /** Stream: the session's replayable events (`EVENT_FIELDS`). */
  events(sessionId: string): string {
    return `${this.namespace}:{${sessionId}}${SESSION_KEY.events}`;
  }

  /** String: why an ended session ended (`session-deleted`, …), for `TOMBSTONE_TTL_MS`. */
  gone(sessionId: string): string {
    return `${this.namespace}:{${sessionId}}${SESSION_KEY.gone}`;
  }

  /** Sorted set: session ids by idle deadline (ms, Redis `TIME`); its size is the session count. */
  get sessions(): string {
    return `${this.namespace}${NAMES.sessions}`;
  }

  /** Set: the session ids of one principal (`maxSessionsPerPrincipal`). */
  principalSessions(principal: string): string {
    return `${this.namespace}${NAMES.principalSessions}${principal}`;
  }

  /** String: an instance's liveness (`{runtime, startedAt}` JSON), `PX` 3 × heartbeat. */
  instance(tag: string): string {
    return `${this.namespace}:inst:${tag}`;
  }

  /** List: targeted messages published while the instance's subscriber was away. */
  inbox(tag: string): string {
    return `${this.namespace}:inbox:${tag}`;
  }

  /** Hash: one task (`TASK_FIELDS`). */
  task(taskId: string): string {
    return `${this.namespace}:{t:${taskId}}`;
  }

  /** Sorted set: task ids of one binding by `createdAt` (`tasks/list`). */
  taskList(binding: string): string {
    return `${this.namespace}:tb:${binding}`;
  }

  /** Set: unfinished task ids of one binding (`countActive`). */
  taskActive(binding: string): string {
    return `${this.namespace}:ta:${binding}`;
  }

  /** Sorted set: task ids by `expiresAt` (the TTL sweep). */
  get tasks(): string {
    return `${this.namespace}:tasks`;
  }

  /** Hash: a rate-limit bucket (`RATE_FIELDS`), expiring once it would be full again. */
  rateBucket(key: string): string {
    return `${this.namespace}:rl:${key}`;
  }

  /** String: the shared `requestState` secret, when a deployment asks Redis for it. */
  get secret(): string {
    return `${this.namespace}:secret`;
  }

  /** Channel: broadcast to every instance. */
  get broadcast(): string {
    return `${this.namespace}${NAMES.broadcast}`;
  }

  /** Channel: messages for one instance. */
  channel(tag: string): string {
    return `${this.namespace}${NAMES.channel}${tag}`;
  }

  /** The instance tag of a channel of `channel(tag)`, else `undefined`. */
  channelTag(channel: string): string | undefined {
    const prefix = `${this.namespace}:i:`;
    return channel.startsWith(prefix) ? channel.slice(prefix.length) : undefined;
  }
}
