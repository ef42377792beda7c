/**
 * Shutdown-signal hooks on Node's `process` (Node and Bun): `serve()` installs them through
 * `shutdownTriggers`, and a second signal exits with `128 + signal number`.
 *
 * @module
 */
import { constants } from 'node:os';
import type { SignalHooks } from './serve.ts';

export const PROCESS_SIGNAL_HOOKS: SignalHooks<NodeJS.Signals> = {
  add(name, listener) {
    process.on(name, listener);
    return true;
  },
  remove: (name, listener) => {
    process.off(name, listener);
  },
  exit: (name) => process.exit(128 + (constants.signals[name] ?? 0)),
};
