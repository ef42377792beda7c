/**
 * A task's input requests (`ctx.elicit` from a task's handler) and their answers (`tasks/update`):
 * wire keys that are never reused over the task's life, the handler's waits, and the answers that
 * wake them, here or relayed from another instance in the record.
 *
 * @module
 */
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { InputRequest } from '../server/types.ts';
import type { TaskRecord } from './store.ts';
import type { Running } from './task-options.ts';

/**
 * Wire keys for `requests`, and the record's new books. The n-th ask of key `k` in one run is
 * `k`, then `k~2`, `k~3`, …: never reused within a run, and the same in a run that starts again,
 * so its `input()` finds what the client already answered. `outstanding` leaves answered keys out.
 */
export function askKeys(
  running: Running,
  current: TaskRecord,
  requests: Record<string, InputRequest>,
) {
  const keys = new Map<string, string>();
  const outstanding = { ...current.inputRequests };
  const issued = [...current.issuedKeys];
  let waiting = false;
  for (const [key, request] of Object.entries(requests)) {
    const n = (running.uses.get(key) ?? 0) + 1;
    running.uses.set(key, n);
    const wire = n === 1 ? key : `${key}~${n}`;
    keys.set(wire, key);
    if (!issued.includes(wire)) issued.push(wire);
    if (wire in running.answers) continue;
    outstanding[wire] = request;
    waiting = true;
  }
  return { keys, outstanding, issued, waiting };
}

/**
 * The handler's wait for the answers to `keys` (wire key → its own key). It ends with the task:
 * cancel, expiry and shutdown reject it with their reason.
 */
export function waitForAnswers(running: Running, keys: Map<string, string>): Promise<JsonObject> {
  const signal = running.scope.signal;
  signal.throwIfAborted();
  return new Promise<JsonObject>((resolve, reject) => {
    const onAbort = () => {
      running.waiters = running.waiters.filter((waiter) => waiter !== entry);
      reject(signal.reason);
    };
    const entry = {
      keys,
      resolve: (answers: JsonObject) => {
        signal.removeEventListener('abort', onAbort);
        resolve(answers);
      },
    };
    running.waiters.push(entry);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Of `responses`, the answers to requests still outstanding; what stays outstanding. */
export function takeAnswers(record: TaskRecord, responses: JsonObject) {
  const outstanding = { ...record.inputRequests };
  const given: Record<string, JsonObject> = {};
  let changed = false;
  for (const [key, value] of Object.entries(responses)) {
    if (!(key in outstanding)) continue;
    delete outstanding[key];
    given[key] = value as JsonObject;
    changed = true;
  }
  return { outstanding, given, changed };
}

/** Answers another instance took (in the record) that this one has not seen; true when new. */
export function mergeAnswers(running: Running, answers: Record<string, JsonObject>): boolean {
  let fresh = false;
  for (const [key, value] of Object.entries(answers)) {
    if (key in running.answers) continue;
    running.answers[key] = value;
    fresh = true;
  }
  return fresh;
}

/** Resolves every wait whose answers have all come; true when one was. */
export function wake(running: Running): boolean {
  const before = running.waiters.length;
  running.waiters = running.waiters.filter((waiter) => {
    const answers: JsonObject = {};
    for (const [wire, key] of waiter.keys) {
      const answer = running.answers[wire];
      if (answer === undefined) return true;
      answers[key] = answer;
    }
    waiter.resolve(answers);
    return false;
  });
  return running.waiters.length < before;
}
