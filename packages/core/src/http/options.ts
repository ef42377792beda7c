import type { AbortReasonType } from '../lifecycle/abort-reason.ts';

/** One finished request, as the request log sees it. */
export interface RequestEvent {
  id: string | number;
  method: string;
  /** Tool, prompt or resource the request named. */
  name: string | undefined;
  protocolVersion: string;
  outcome: 'ok' | 'error' | 'cancelled';
  /** Why it was cancelled, when `outcome` is `cancelled`. */
  reason: AbortReasonType | undefined;
  /** JSON-RPC error code, when `outcome` is `error`. */
  errorCode: number | undefined;
  /** Milliseconds from dispatch until the handler settled. */
  ms: number;
}

export interface McpHandlerOptions {
  /** Server-wide shutdown: aborting it is the same as calling `close()`. */
  signal?: AbortSignal;
  /**
   * Host names (or `host:port`) accepted besides loopback names; `'*'` accepts any.
   * @default [] — only localhost, 127.0.0.1 and [::1]
   */
  allowedHosts?: string[] | '*';
  /**
   * Origins (`scheme://host[:port]`) accepted besides loopback origins; `'*'` accepts any.
   * Requests without an Origin header (non-browser clients) are not affected.
   * @default [] — only origins whose host is a loopback name
   */
  allowedOrigins?: string[] | '*';
  /** Largest accepted request body, enforced while reading (413 above it). @default 4 MiB */
  maxBodyBytes?: number;
  /** Interval of SSE comment keep-alives on open streams; 0 turns them off. @default 15000 */
  keepAliveMs?: number;
  /**
   * How long `close()` waits for handlers that ignore their aborted signal before it resolves anyway.
   * @default 10000
   */
  shutdownTimeoutMs?: number;
  /** Input-required (MRTR) `requestState` signing. */
  requestState?: {
    /** HMAC key; set the same secret on every instance behind one URL. @default a random key per handler */
    secret?: string | Uint8Array;
    /** Lifetime of a state. @default 600000 (10 minutes) */
    ttlMs?: number;
  };
  /** Cache hints on list, read and discover results (2026-07-28). @default { ttlMs: 0, cacheScope: 'private' } */
  cache?: { ttlMs?: number; cacheScope?: 'public' | 'private' };
  /** Items per page of tools/list, prompts/list, resources/list, resources/templates/list. @default 100 */
  pageSize?: number;
  /** Called once per request when its handler settled (the request log). Must not throw. */
  onRequest?: (event: RequestEvent) => void;
}
