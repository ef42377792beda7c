/**
 * The task chaos run of issue 27, as users run the example: three `pnpm start` instances (one
 * with `MCP_TASKS_RUN=workers`, so it only queues) and two `pnpm start:worker` processes on one
 * redis-server. A client starts tasks on whichever instance is up — `long_job` (may run again),
 * `sleep` (may not) and `ask_job` (asks for input, answered once a kill has happened since it
 * asked) — and polls each until it ends, while every `killEveryMs` the process running the
 * most tasks — in turn a front that runs its own, a worker, the front that only queues — is
 * SIGKILLed and started again. `taskChaosFindings()` (task-chaos-report.ts) judges what it saw.
 *
 * @module
 */
import { modern, readAnswer } from '@edge-mcp/test-kit';
import { SERVER, type StartedApp, startApp } from './app-process.ts';
import { instanceTag, runLines } from './task-chaos-log.ts';

export type Kind = 'long' | 'once' | 'ask';
type Role = 'front' | 'queueing-front' | 'worker';

export interface TaskChaosOptions {
  redisUrl: string;
  tasks: number;
  killEveryMs: number;
  /** Tasks unfinished at once at most (under the example's 100 per principal). */
  concurrency: number;
  /** Tasks go on being started past `tasks` until this many kills have happened. */
  minKills?: number;
  log?: (line: string) => void;
}

export interface ClientTask {
  kind: Kind;
  taskId: string;
  /** Its last status and, if it failed, the error. */
  status: string;
  error?: { code: number; data?: { reason?: string } };
  text?: string;
  /** `ask`: when it was first seen waiting for input, and when the answer was acknowledged. */
  askedAt?: number;
  answeredAt?: number;
}

export interface Kill {
  role: Role;
  tag: string | undefined;
  at: number;
}

export interface TaskChaosRun {
  tasks: ClientTask[];
  kills: Kill[];
  /** Every process's whole output, killed ones included. */
  outputs: string[];
  /** Tasks the client started (`tasks` or more: see `minKills`). */
  started: number;
  /** `tasks/get` answers `-32602` (the task unknown) seen, and calls that could not be made. */
  unknown: number;
  notTasks: number;
  ms: number;
}

const CLIENT = {
  capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: { form: {} } },
};
const READY = { front: 'edge-mcp example serving http://', worker: 'edge-mcp task worker running' };

interface Slot {
  role: Role;
  app: StartedApp;
  /** False while it is being replaced. */
  up: boolean;
}

export async function runTaskChaos(options: TaskChaosOptions): Promise<TaskChaosRun> {
  const log = options.log ?? (() => {});
  const env = { REDIS_URL: options.redisUrl, REDIS_HEARTBEAT_MS: '300', REDIS_NAMESPACE: 'chaos' };
  const outputs: string[] = [];
  const start = (role: Role): Promise<StartedApp> =>
    role === 'worker'
      ? startApp(SERVER, 'start:worker', env, READY.worker)
      : startApp(SERVER, 'start', role === 'front' ? env : { ...env, MCP_TASKS_RUN: 'workers' });
  const roles: Role[] = ['front', 'front', 'queueing-front', 'worker', 'worker'];
  const slots: Slot[] = await Promise.all(
    roles.map(async (role) => ({ role, app: await start(role), up: true })),
  );
  const began = Date.now();
  const fronts = () => slots.filter((slot) => slot.role !== 'worker' && slot.up);
  let turn = 0;
  const pick = () => {
    const live = fronts();
    return live[turn++ % live.length] as Slot;
  };
  const tally = { unknown: 0, notTasks: 0 };

  /** One call to some live instance; an instance killed under it is tried again elsewhere. */
  async function call(method: string, params: Record<string, unknown>) {
    for (let attempt = 0; ; attempt++) {
      const slot = pick();
      try {
        const answer = await readAnswer(
          await fetch(`${slot.app.url}/mcp`, { ...modern(method, params, CLIENT) }),
        );
        if (answer.status < 500) return answer;
      } catch (error) {
        if (attempt > 50) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  // The kills: each waits for the next one's time, then replaces a process.
  const kills: Kill[] = [];
  let killed: () => void = () => {};
  let nextKill = new Promise<void>((resolve) => {
    killed = resolve;
  });
  let stopping = false;
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  // Kills take turns: the busiest front that runs its tasks, the busiest worker, the front
  // that only queues.
  const victim = (): Slot => {
    const role: Role = (['front', 'worker', 'queueing-front'] as const)[kills.length % 3] as Role;
    const busy = (slot: Slot) => {
      const lines = runLines(slot.app.output());
      const ended = new Set(lines.filter((l) => l.event === 'task-end').map((l) => l.taskId));
      return lines.filter((l) => l.event === 'task-run' && !ended.has(l.taskId)).length;
    };
    const candidates = slots.filter((slot) => slot.role === role);
    return candidates.reduce((most, slot) => (busy(slot) > busy(most) ? slot : most));
  };
  const chaos = (async () => {
    while (!stopping) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        stopped,
        new Promise((resolve) => {
          timer = setTimeout(resolve, options.killEveryMs);
        }),
      ]);
      clearTimeout(timer);
      if (stopping) break;
      const slot = victim();
      const tag = instanceTag(slot.app.output());
      slot.up = false;
      process.kill(-(slot.app.pnpm.pid as number), 'SIGKILL');
      await slot.app.exited;
      outputs.push(slot.app.output());
      kills.push({ role: slot.role, tag, at: Date.now() });
      log(`task chaos: killed a ${slot.role} (${tag}) at ${Date.now() - began} ms`);
      const done = killed;
      nextKill = new Promise<void>((resolve) => {
        killed = resolve;
      });
      done();
      slot.app = await start(slot.role);
      slot.up = true;
    }
  })();

  const kinds: Kind[] = [
    'long',
    'long',
    'once',
    'ask',
    'long',
    'once',
    'long',
    'ask',
    'long',
    'once',
  ];
  const tasks: ClientTask[] = [];
  async function drive(index: number): Promise<void> {
    const kind = kinds[index % kinds.length] as Kind;
    const ms = 300 + ((index * 7919) % 2500);
    const [name, args] =
      kind === 'long'
        ? ['long_job', { ms }]
        : kind === 'once'
          ? ['sleep', { ms }]
          : ['ask_job', { job: `job ${index}` }];
    const created = await call('tools/call', { name, arguments: args });
    const result = created.message.result;
    if (result?.resultType !== 'task') {
      tally.notTasks++;
      return;
    }
    const task: ClientTask = { kind, taskId: result.taskId, status: result.status };
    tasks.push(task);
    while (!['completed', 'failed', 'cancelled'].includes(task.status)) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const got = await call('tasks/get', { taskId: task.taskId });
      if (got.message.error?.code === -32602) {
        tally.unknown++;
        continue;
      }
      const state = got.message.result ?? {};
      task.status = state.status ?? task.status;
      if (state.error) task.error = state.error;
      if (state.result) task.text = state.result.content?.[0]?.text;
      if (task.status === 'input_required' && task.answeredAt === undefined) {
        task.askedAt ??= Date.now();
        // Answered once a kill has happened since it asked (or after two kill periods).
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          nextKill,
          new Promise((resolve) => {
            timer = setTimeout(resolve, 2 * options.killEveryMs);
          }),
        ]);
        clearTimeout(timer);
        const ack = await call('tasks/update', {
          taskId: task.taskId,
          inputResponses: { ending: { action: 'accept', content: { ending: 'signed off' } } },
        });
        if (ack.message.result?.resultType === 'complete') task.answeredAt = Date.now();
      }
    }
  }

  // At most `concurrency` tasks unfinished at once.
  let next = 0;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < options.tasks || kills.length < (options.minKills ?? 0)) await drive(next++);
    }),
  );
  stopping = true;
  stop();
  await chaos;
  for (const slot of slots) {
    process.kill(-(slot.app.pnpm.pid as number), 'SIGTERM');
    await slot.app.exited;
    outputs.push(slot.app.output());
  }
  return { tasks, kills, outputs, started: next, ...tally, ms: Date.now() - began };
}
