/**
 * Every Redis key, hash field and pub/sub channel name the package uses, in one
 * place. `<ns>` is the namespace; `{…}` are hash tags. Two layouts:
 *
 * - **one primary** (`RedisKeys`): a session's keys share the tag `{<sid>}`; one index of every
 *   session, one broadcast channel.
 * - **sharded** (`ShardedKeys`, a Redis Cluster): sessions and tasks live in *partitions*, each a
 *   hash tag `{p<k>}` and so one slot: a session's hash, events and tombstone, its partition's
 *   index, the tasks of a binding of that partition and their indexes. Session and task ids begin
 *   with their partition (`p<k>.…`), so every key of a request follows from its id and every
 *   script touches one slot. Each partition has its own broadcast channel (sharded pub/sub): the
 *   channels spread over the shards like the data. An instance's liveness key, inbox and channel
 *   share the tag `{i:<tag>}`. The session caps count in admission sets of their own tag.
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
 * `gone_key(ns, id)`, `index_key(ns, id)` (the index holding session `id`), `principal_key(ns,
 * principal)`, `broadcast_channel(ns, id)` (where session `id`'s `closed` goes) and
 * `instance_channel(ns, tag)`, in the layout's form (`ShardedKeys` builds the same names).
 */
export function luaKeys(sharded: boolean): string {
  if (!sharded) return LUA_KEYS;
  return `local function part_of(id) return string.match(id, '^[^.]*') end
local function session_part(ns, id, part) return ns .. ':{' .. part_of(id) .. '}:' .. id .. part end
local function session_key(ns, id) return session_part(ns, id, '${SESSION_KEY.record}') end
local function events_key(ns, id) return session_part(ns, id, '${SESSION_KEY.events}') end
local function gone_key(ns, id) return session_part(ns, id, '${SESSION_KEY.gone}') end
local function index_key(ns, id) return ns .. ':{' .. part_of(id) .. '}${NAMES.sessions}' end
local function broadcast_channel(ns, id) return ns .. ':{' .. part_of(id) .. '}${NAMES.broadcast}' end
`;
}

/** The one-primary layout's Lua (`luaKeys(false)`). */
export const LUA_KEYS = `local function session_part(ns, id, part) return ns .. ':{' .. id .. '}' .. part end
local function session_key(ns, id) return session_part(ns, id, '${SESSION_KEY.record}') end
local function events_key(ns, id) return session_part(ns, id, '${SESSION_KEY.events}') end
local function gone_key(ns, id) return session_part(ns, id, '${SESSION_KEY.gone}') end
local function index_key(ns, id) return ns .. '${NAMES.sessions}' end
local function principal_key(ns, principal) return ns .. '${NAMES.principalSessions}' .. principal end
local function broadcast_channel(ns, id) return ns .. '${NAMES.broadcast}' end
local function instance_channel(ns, tag) return ns .. '${NAMES.channel}' .. tag end
`;

/** Key prefixes of one task partition (`RedisKeys.taskPrefixes`). */
export interface TaskPrefixes {
  readonly task: readonly [string, string];
  readonly list: string;
  readonly active: string;
  readonly index: string;
  /** Hash: the partition's unfinished tasks, id → the runner holding it ('' queued): the lease sweep. */
  readonly held: string;
}

/** The default namespace: several deployments may share one Redis with others. */
export const DEFAULT_NAMESPACE = 'edge-mcp';

/** Key and channel names of one namespace. */
export class RedisKeys {
  readonly namespace: string;
  /** Partitioned for a sharded cluster (`ShardedKeys`). */
  readonly sharded: boolean = false;

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

  /** A new session id (a UUID; `ShardedKeys` puts a partition in front). */
  newSessionId(): string {
    return crypto.randomUUID();
  }

  /** A new task id for `binding`, from `random` (`ShardedKeys` puts the partition in front). */
  taskId(_binding: string, random: string): string {
    return random;
  }

  /** Sorted set: the ids of the sessions that share session `id`'s index, by idle deadline. */
  index(_sessionId: string): string {
    return this.sessions;
  }

  /** Every session index (one per partition). */
  indexes(): string[] {
    return [this.sessions];
  }

  /** Whether session `sessionId`'s keys share task `taskId`'s slot (always on one primary). */
  sameSlot(_taskId: string, _sessionId: string | undefined): boolean {
    return true;
  }

  /** The partitions of tasks (one, '', on one primary). */
  taskParts(): string[] {
    return [''];
  }

  /** The partition of `binding`'s tasks. */
  taskPartOf(_binding: string): string {
    return '';
  }

  /**
   * The key prefixes of one task partition, for the scripts that build the keys of its tasks: a
   * task's hash is `task[0] + id + task[1]`, a binding's list `list + binding`, its active set
   * `active + binding`; `index` is the partition's expiry index, `held` its unfinished tasks'
   * runners.
   */
  taskPrefixes(_part: string): TaskPrefixes {
    const [before, after = ''] = this.task('\0').split('\0') as [string, string?];
    return {
      task: [before, after],
      list: this.taskList(''),
      active: this.taskActive(''),
      index: this.tasks,
      held: `${this.tasks}:held`,
    };
  }

  /** Every broadcast channel an instance listens to. */
  broadcasts(): string[] {
    return [this.broadcast];
  }

  /** The broadcast channel of messages about session `id` (its `closed`, its cancels). */
  broadcastOf(_sessionId: string): string {
    return this.broadcast;
  }

  /**
   * The channel of a broadcast ordered by `key` (`ShardedKeys` spreads them over the partitions'
   * channels; one key always takes the same one).
   */
  anyBroadcast(_key: string): string {
    return this.broadcast;
  }

  /** The instance tag of a channel of `channel(tag)`, else `undefined`. */
  channelTag(channel: string): string | undefined {
    const prefix = `${this.namespace}:i:`;
    return channel.startsWith(prefix) ? channel.slice(prefix.length) : undefined;
  }
}

/** Partitions of a sharded layout by default: enough that they spread over a few dozen shards. */
export const DEFAULT_PARTITIONS = 64;

/**
 * The sharded layout (see the module comment): the same names as `RedisKeys`, each in the slot of
 * its session's, task's or instance's hash tag.
 */
export class ShardedKeys extends RedisKeys {
  override readonly sharded = true;
  readonly partitions: number;

  constructor(namespace: string = DEFAULT_NAMESPACE, partitions: number = DEFAULT_PARTITIONS) {
    super(namespace);
    if (!Number.isInteger(partitions) || partitions < 1 || partitions > 16384)
      throw new RangeError(`partitions must be an integer from 1 to 16384, got ${partitions}`);
    this.partitions = partitions;
  }

  /** The partition tag of an id (`p<k>` before the first `.`; a foreign id names its own). */
  static partOf(id: string): string {
    const dot = id.indexOf('.');
    return dot < 0 ? id : id.slice(0, dot);
  }

  /** The partition tag of a task binding: a session's for `s:<sid>`, else a hash of it. */
  partOfBinding(binding: string): string {
    if (binding.startsWith('s:')) return ShardedKeys.partOf(binding.slice(2));
    return `p${(fnv1a(binding) % this.partitions).toString(36)}`;
  }

  override newSessionId(): string {
    const k = crypto.getRandomValues(new Uint32Array(1))[0] as number;
    return `p${(k % this.partitions).toString(36)}.${crypto.randomUUID()}`;
  }

  override taskId(binding: string, random: string): string {
    return `${this.partOfBinding(binding)}.${random}`;
  }

  #tag(part: string): string {
    return `${this.namespace}:{${part}}`;
  }

  #all(name: string): string[] {
    return Array.from(
      { length: this.partitions },
      (_, k) => `${this.#tag(`p${k.toString(36)}`)}${name}`,
    );
  }

  override session(sessionId: string): string {
    return `${this.#tag(ShardedKeys.partOf(sessionId))}:${sessionId}${SESSION_KEY.record}`;
  }

  override events(sessionId: string): string {
    return `${this.#tag(ShardedKeys.partOf(sessionId))}:${sessionId}${SESSION_KEY.events}`;
  }

  override gone(sessionId: string): string {
    return `${this.#tag(ShardedKeys.partOf(sessionId))}:${sessionId}${SESSION_KEY.gone}`;
  }

  override index(sessionId: string): string {
    return `${this.#tag(ShardedKeys.partOf(sessionId))}${NAMES.sessions}`;
  }

  override indexes(): string[] {
    return this.#all(NAMES.sessions);
  }

  /** Set: the ids of every session, for the cluster-wide `maxSessions` (its own slot). */
  get admitted(): string {
    return `${this.#tag('admitted')}:sessions`;
  }

  /** Sorted set: instance tags by liveness deadline (ms), for `clusterStats`. */
  get registry(): string {
    return `${this.#tag('instances')}:live`;
  }

  override principalSessions(principal: string): string {
    return `${this.#tag(`ps:${principal}`)}`;
  }

  /**
   * One slot for every bucket: a request takes from several at once, atomically (a principal's
   * and the server's), so they share a shard; that shard carries the rate limits' load.
   */
  override rateBucket(key: string): string {
    return `${this.#tag('rl')}:${key}`;
  }

  override instance(tag: string): string {
    return `${this.#tag(`i:${tag}`)}:live`;
  }

  override inbox(tag: string): string {
    return `${this.#tag(`i:${tag}`)}:inbox`;
  }

  override channel(tag: string): string {
    return `${this.#tag(`i:${tag}`)}:ch`;
  }

  override channelTag(channel: string): string | undefined {
    const prefix = `${this.namespace}:{i:`;
    if (!channel.startsWith(prefix) || !channel.endsWith('}:ch')) return undefined;
    return channel.slice(prefix.length, -'}:ch'.length);
  }

  override broadcasts(): string[] {
    return this.#all(NAMES.broadcast);
  }

  /** The channel of session `id`'s partition: its messages keep the order of its `closed`. */
  override broadcastOf(sessionId: string): string {
    return `${this.#tag(ShardedKeys.partOf(sessionId))}${NAMES.broadcast}`;
  }

  /** Spread by a hash of `key` over the partitions' channels: no shard carries every broadcast. */
  override anyBroadcast(key: string): string {
    return `${this.#tag(`p${(fnv1a(key) % this.partitions).toString(36)}`)}${NAMES.broadcast}`;
  }

  override task(taskId: string): string {
    return `${this.#tag(ShardedKeys.partOf(taskId))}:t:${taskId}`;
  }

  override taskList(binding: string): string {
    return `${this.#tag(this.partOfBinding(binding))}:tb:${binding}`;
  }

  override taskActive(binding: string): string {
    return `${this.#tag(this.partOfBinding(binding))}:ta:${binding}`;
  }

  override sameSlot(taskId: string, sessionId: string | undefined): boolean {
    return sessionId !== undefined && ShardedKeys.partOf(taskId) === ShardedKeys.partOf(sessionId);
  }

  override taskParts(): string[] {
    return Array.from({ length: this.partitions }, (_, k) => `p${k.toString(36)}`);
  }

  override taskPartOf(binding: string): string {
    return this.partOfBinding(binding);
  }

  override taskPrefixes(part: string): TaskPrefixes {
    const tag = this.#tag(part);
    return {
      task: [`${tag}:t:`, ''],
      list: `${tag}:tb:`,
      active: `${tag}:ta:`,
      index: `${tag}:tasks`,
      held: `${tag}:tasks:held`,
    };
  }
}

/** 32-bit FNV-1a of a string's UTF-16 code units: a cheap, stable spread of bindings. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
