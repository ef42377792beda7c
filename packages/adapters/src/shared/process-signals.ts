/**
 * Shutdown-signal hooks on Node's `process` (Node and Bun): `serve()` installs them through
 * `shutdownTriggers`, and a second signal exits with `128 + signal number` (`signalExitCode`, the
 * same table the Deno adapter uses).
 *
 * @module
 */
import { type SignalHooks, signalExitCode } from './serve.ts';

export const PROCESS_SIGNAL_HOOKS: SignalHooks<NodeJS.Signals> = {
  add(name, listener) {
    process.on(name, listener);
    return true;
  },
  remove: (name, listener) => {
    process.off(name, listener);
  },
  exit: (name) => process.exit(signalExitCode(name)),
};
