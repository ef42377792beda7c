/** What a runtime can do, driving `test.skipIf` in the shared suite. */
export interface TargetCaps {
  /** Legacy sessions: GET stream, resumption, server→client requests. */
  sessions: boolean;
  /** How the server shuts down: a process signal, `close()` in this process, or not at all. */
  shutdown: 'process' | 'in-process' | false;
  /** Worst case between a client leaving and the handler's abort, for the assertion margin. */
  disconnectBoundMs: number;
}

export type LogLine = Record<string, unknown> & { kind: string };

/** A server under test, on one runtime. */
export interface Target {
  readonly name: string;
  /** Base URL, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  readonly mcpUrl: string;
  readonly caps: TargetCaps;
  /** The request/session log the fixture keeps (GET /__log). */
  log(): Promise<LogLine[]>;
  /** Shuts the server down (SIGTERM or close()); resolves with the exit code of a process. */
  shutdown(): Promise<{ code: number | null }>;
  /** Stops it for good (after the tests). */
  stop(): Promise<void>;
}

/** The target of the running suite, set in `beforeAll`; each suite group reads it in its tests. */
export interface Current {
  target: Target;
}
