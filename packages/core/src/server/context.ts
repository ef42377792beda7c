import type { AuthInfo } from '../auth/auth-info.ts';
import type { RequestInfo } from '../http/request-view.ts';
import type { AbortReasonType } from '../lifecycle/abort-reason.ts';
import type { LogLevel } from '../protocol/constants.ts';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.ts';
import type { ClientCapabilities, Implementation, InputRequest } from './types.ts';

/** The part of a legacy session tools see through `ctx.session`. */
export interface SessionHandle {
  readonly id: string;
  /** Per-session state for stateful tools (a running sum, a cursor); dropped when the session ends. */
  readonly state: Map<string, unknown>;
  /** Runs `fn` once when the session ends, with the reason. */
  onClose(fn: (reason: AbortReasonType) => void): void;
}

/**
 * What every tool, resource and prompt handler receives besides its arguments.
 * The same interface serves both protocol eras.
 */
export interface RequestContext {
  /** Aborts when the request is cancelled; `signal.reason` is a `RequestAbortedError` with a `type`. */
  readonly signal: AbortSignal;
  readonly requestId: RequestId;
  readonly method: string;
  /** Protocol revision this request is served under. */
  readonly protocolVersion: string;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: ClientCapabilities;
  /** The request's `params._meta`. */
  readonly meta: JsonObject;
  /**
   * Who sent the request, when the handler authenticates (the `auth` option) or an integration
   * vouched for the principal; `undefined` otherwise.
   */
  readonly auth: AuthInfo | undefined;
  /**
   * The HTTP request that carried the call: read-only headers, the client's address and the URL
   * as the client addressed it (behind proxies `trustProxy` trusts, what they forwarded).
   */
  readonly request: RequestInfo;
  /** The legacy session the request belongs to; `undefined` in 2026-07-28 (stateless). */
  readonly session?: SessionHandle | undefined;
  /**
   * Reports progress when the client asked for it (`_meta.progressToken`); a no-op otherwise.
   * Values must increase; the answer becomes an SSE stream on the first report.
   */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends a log message at `level` if the client's log level lets it through; a no-op otherwise. */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /**
   * Asks the client for input (elicitation, sampling, roots) and resolves with the answers by key.
   * In 2026-07-28 this ends the current round with an input-required result and the handler runs
   * again when the client retries with the answers; keep side effects after the last `input()`.
   * Throws -32021 when the client did not declare the capability a request needs.
   */
  input<K extends string>(requests: Record<K, InputRequest>): Promise<Record<K, JsonObject>>;
  /** `input()` for one `elicitation/create`; `key` defaults to the call order. */
  elicit(params: JsonObject, key?: string): Promise<JsonObject>;
  /** `input()` for one `sampling/createMessage`. */
  sample(params: JsonObject, key?: string): Promise<JsonObject>;
  /** `input()` for one `roots/list`. */
  listRoots(key?: string): Promise<JsonObject>;
  /**
   * Turns the call into a task (tools registered with `taskSupport`, `taskStart: 'manual'`):
   * the task is created, the request answered with it, and the handler goes on without its
   * client, under the server (its `ctx.signal` now aborts on `tasks/cancel`, the task's TTL or
   * shutdown). Resolves with the task id, or `undefined` when this call cannot become a task (the
   * client did not ask for one, or the tool does not allow it): the handler then simply goes on.
   */
  detach(statusMessage?: string): Promise<string | undefined>;
  /** The task this handler runs as, once it is one. */
  readonly task: TaskHandle | undefined;
}

/** A running task, as its handler sees it. */
export interface TaskHandle {
  readonly id: string;
  /** Sets the task's `statusMessage` (what a client polling it sees). */
  status(message: string): void;
}

/** The client capability an input request needs, as a ClientCapabilities object (for -32021). */
export function requiredCapability(
  request: InputRequest,
  caps: ClientCapabilities,
): JsonObject | undefined {
  switch (request.method) {
    case 'elicitation/create': {
      const mode = request.params?.mode === 'url' ? 'url' : 'form';
      const declared = caps.elicitation;
      // An empty `elicitation: {}` means form mode, for clients older than the mode split.
      const ok = declared && (mode === 'url' ? declared.url : declared.form || !declared.url);
      return ok ? undefined : { elicitation: { [mode]: {} } };
    }
    case 'sampling/createMessage': {
      if (!caps.sampling) return { sampling: {} };
      if (request.params?.tools && !caps.sampling.tools) return { sampling: { tools: {} } };
      return undefined;
    }
    case 'roots/list':
      return caps.roots ? undefined : { roots: {} };
  }
}
