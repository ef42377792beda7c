/**
 * What the task chaos run counts from the servers' own log: every process of the example writes
 * one JSON line per task run begun (`task-run`) and ended (`task-end`, with what the run wrote),
 * with the runner, attempt and fencing token (`tasks.onRun`, `taskRunLogger`). Killed processes'
 * output is kept, so a run that began on an instance later SIGKILLed is counted too.
 *
 * @module
 */

export interface RunLine {
  event: 'task-run' | 'task-end';
  time: number;
  taskId: string;
  tool: string;
  runner: string;
  attempt: number;
  fence: number;
  outcome?: string;
  reason?: string;
}

/** The task run lines of one process's output. */
export function runLines(output: string): RunLine[] {
  const lines: RunLine[] = [];
  for (const text of output.split('\n')) {
    if (!text.includes('"event":"task-run"') && !text.includes('"event":"task-end"')) continue;
    try {
      const line = JSON.parse(text.slice(text.indexOf('{'))) as Omit<RunLine, 'time'> & {
        time: string;
      };
      lines.push({ ...line, time: Date.parse(line.time) });
    } catch {
      // A line cut by a SIGKILL: not a run anyone can count.
    }
  }
  return lines;
}

/** The instance tag a process printed at start-up (`… (instance <tag>)`). */
export function instanceTag(output: string): string | undefined {
  return /\(instance ([\w.-]+)\)/.exec(output)?.[1];
}

export interface RunsByTask {
  starts: RunLine[];
  ends: RunLine[];
}

/** Every run line of every process, by task. */
export function runsByTask(outputs: readonly string[]): Map<string, RunsByTask> {
  const byTask = new Map<string, RunsByTask>();
  for (const output of outputs) {
    for (const line of runLines(output)) {
      let runs = byTask.get(line.taskId);
      if (!runs) {
        runs = { starts: [], ends: [] };
        byTask.set(line.taskId, runs);
      }
      (line.event === 'task-run' ? runs.starts : runs.ends).push(line);
    }
  }
  for (const runs of byTask.values()) runs.starts.sort((a, b) => a.time - b.time);
  return byTask;
}

/** The runner of the last run of a task begun at or before `time`. */
export function runnerAt(runs: RunsByTask | undefined, time: number): string | undefined {
  let runner: string | undefined;
  for (const start of runs?.starts ?? []) if (start.time <= time) runner = start.runner;
  return runner;
}
