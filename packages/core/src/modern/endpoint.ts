import type { Scope } from '../lifecycle/scope.ts';
import type { Endpoint } from '../server/endpoint.ts';
import type { TaskEngine } from '../tasks/engine.ts';
import type { RequestStateSigner } from './request-state.ts';

/** What the 2026-07-28 era reads of the endpoint besides what both eras read. */
export interface ModernEndpoint extends Endpoint {
  /** Signs and checks the `requestState` of input-required rounds. */
  readonly signer: RequestStateSigner;
  /** Cache hints added to list, read and discover results. */
  readonly cache: { readonly ttlMs: number; readonly cacheScope: 'public' | 'private' };
  /** Protocol versions the endpoint serves (discover's `supportedVersions`, -32022's data). */
  readonly supported: readonly string[];
  /** `"_meta":{serverInfo}` serialized once, spliced into results. */
  readonly serverInfoMeta: string;
  /** Runs tasks, when the server has tools that may run as ones. */
  readonly tasks: TaskEngine | undefined;
  /** Open `subscriptions/listen` streams (a drain ends them first). */
  readonly listens: Set<Scope>;
}
