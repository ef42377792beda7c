import type { Limits } from '../defaults.ts';
import type { ProxyTrust } from '../http/forwarded.ts';
import type { StreamSettings } from '../http/stream-settings.ts';
import type { Scope } from '../lifecycle/scope.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { Registry } from './registry.ts';
import type { ResourceServer } from './resource-server.ts';

/**
 * What both eras read of the endpoint that serves them (the handler, one layer up), built once
 * per handler. Each era widens it with what only it needs (`ModernEndpoint`, `LegacyEndpoint`);
 * the handler implements them all, and no era imports the handler. An era does not run a request
 * either: it returns a `PreparedCall`, which routing runs.
 */
export interface Endpoint {
  readonly registry: Registry;
  /** Root of the cancellation tree: modern requests (and session-less legacy ones) hang here. */
  readonly root: Scope;
  readonly pageSize: number;
  /** Keep-alives, early streaming, the queue bound of every stream, and the counters. */
  readonly streams: StreamSettings;
  /** What one client may make the server hold or do. */
  readonly limits: Limits;
  /** The OAuth resource server, when the handler authenticates (the `auth` option). */
  readonly resourceServer: ResourceServer | undefined;
  /** `serverInfo` as results carry it (name, version, title: no instructions). */
  readonly serverInfo: JsonObject;
  readonly instructions: string | undefined;
  /** The proxies whose forwarded headers count (`trustProxy`); `undefined` trusts none. */
  readonly trust: ProxyTrust | undefined;
}
