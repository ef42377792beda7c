/**
 * The lease sweep of a `RedisTaskStore`, in each heartbeat: an instance's lease on the tasks it
 * runs is its liveness key (renewed by every beat, gone three beats after its last), so each
 * beat reads, per partition, the unfinished tasks whose runner has no liveness key any more and
 * those queued for a runner, and hands them to the engine (`TaskHost.orphaned`), which claims
 * them with the next fencing token or answers them `failed`. Prompt: within three heartbeats of
 * a runner's last beat, not at the task's TTL.
 *
 * @module
 */
import type { RedisReply } from './connection.ts';
import type { RedisContext } from './context.ts';
import type { RedisOp, RedisReplyError } from './redis-types.ts';
import { taskScripts } from './scripts/tasks.ts';

/** Orphans handed on per partition and beat (the rest wait for the next beat). */
const ORPHAN_BATCH = 100;

export class LeaseSweep {
  readonly #context: RedisContext;
  readonly #orphaned: (id: string) => void;
  readonly #instancePrefix: string;

  constructor(context: RedisContext, orphaned: (id: string) => void) {
    this.#context = context;
    this.#orphaned = orphaned;
    this.#instancePrefix = context.keys.instance('');
  }

  /** The sweep of partition `part`, with `dead` runners named (sharded: asked apart). */
  op(part: string, dead: readonly string[]): RedisOp {
    const { keys } = this.#context;
    return {
      script: taskScripts(keys).held,
      keys: [keys.taskPrefixes(part).held],
      args: [this.#instancePrefix, keys.sharded ? 0 : 1, ORPHAN_BATCH, ...dead],
    };
  }

  /**
   * The beat's replies, one per partition of `parts`. On one primary the script checked the
   * liveness keys itself; sharded, the runners it met are asked here (each once) and the
   * partitions that hold a dead one are swept again, naming them.
   */
  swept(parts: readonly string[], replies: ReadonlyArray<RedisReply | RedisReplyError>): void {
    const found: Array<[string, string[]]> = [];
    for (let i = 0; i < replies.length; i++) {
      const reply = replies[i];
      if (reply instanceof Error) {
        this.#context.options.onError(reply, 'tasks');
        continue;
      }
      const [orphans, runners] = reply as [RedisReply[], RedisReply[]];
      for (const id of orphans) this.#orphaned(String(id));
      if (this.#context.keys.sharded && runners.length > 0)
        found.push([parts[i] as string, runners.map(String)]);
    }
    if (found.length > 0)
      this.#again(found).catch((error: Error) => this.#context.options.onError(error, 'tasks'));
  }

  async #again(found: ReadonlyArray<[string, string[]]>): Promise<void> {
    const { instance, connection } = this.#context;
    const alive = new Map<string, Promise<boolean>>();
    const ask = (tag: string) => {
      let answer = alive.get(tag);
      if (!answer) {
        answer = tag === instance.tag ? Promise.resolve(true) : instance.alive(tag);
        alive.set(tag, answer);
      }
      return answer;
    };
    for (const [part, runners] of found) {
      const dead: string[] = [];
      for (const runner of runners) if (!(await ask(runner))) dead.push(runner);
      if (dead.length === 0) continue;
      const op = this.op(part, dead) as Extract<RedisOp, { script: unknown }>;
      const reply = (await connection.script(op.script, op.keys, op.args ?? [])) as [
        RedisReply[],
        RedisReply[],
      ];
      for (const id of reply[0]) this.#orphaned(String(id));
    }
  }
}
