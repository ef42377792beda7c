/**
 * The POSTed message to its era, and the request it prepared run here: routing owns the request
 * accounting, the eras only prepare (`PreparedCall`).
 *
 * @module
 */
import type { AuthInfo } from '../auth/auth-info.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import { type Answer, accepted, Reply, refuse } from '../http/responses.ts';
import type { LegacyContext } from '../legacy/context.ts';
import type { RequestLoad } from '../lifecycle/in-flight-load.ts';
import type { ModernContext } from '../modern/context.ts';
import { handleModern } from '../modern/dispatch.ts';
import {
  DEFAULT_LEGACY_VERSION,
  ErrorCode,
  HEADER,
  META,
  MODERN_VERSION,
} from '../protocol/constants.ts';
import { modernHeader } from '../protocol/era.ts';
import {
  isObject,
  type JsonObject,
  type JsonRpcMessage,
  type RequestId,
} from '../protocol/jsonrpc.ts';
import { PreparedCall } from '../server/execute.ts';
import { unavailable } from './admission.ts';
import type { LegacyOutcome } from './legacy-era.ts';
import type { LegacyEra, RoutedEndpoint } from './routed-endpoint.ts';

/**
 * The message to its era (`classifyEra`'s rule): one carrying the modern `_meta` (or header) is
 * 2026-07-28; anything else is a legacy message, answered by its session.
 */
export function toEra(
  core: RoutedEndpoint,
  request: IncomingRequest,
  message: JsonRpcMessage | unknown[],
  auth: AuthInfo | undefined,
  held: RequestLoad,
): Answer | Promise<Answer> {
  const headerSaysModern = modernHeader(request.headers);
  if (Array.isArray(message)) {
    if (core.legacyEnabled && !headerSaysModern)
      return batch(core, request, message, auth, held).catch((error: unknown) =>
        unavailable(error, undefined),
      );
    return refuse(
      'invalid-message',
      400,
      ErrorCode.InvalidRequest,
      'Batches are not supported by core protocol revision',
    );
  }
  const params = message.kind === 'response' ? undefined : message.message.params;
  const meta = isObject(params?._meta) ? params._meta : undefined;
  // classifyEra's rule, with the header already read and the message already classified.
  const modern = (meta !== undefined && META.protocolVersion in meta) || headerSaysModern;
  if (modern || !core.legacyEnabled) {
    if (message.kind === 'response')
      return refuse(
        'invalid-message',
        400,
        ErrorCode.InvalidRequest,
        'Clients must not send JSON-RPC responses',
      );
    // The modern era defines no client notifications over HTTP; accept and ignore them.
    if (message.kind === 'notification') return accepted();
    // Legacy-only input (a `_meta` without the version, e.g. a progress token, counts as legacy).
    if (!modern) return modernOnly(core, request, message.message.id, message.message);
    return start(core, handleModern(core, request, message.message, meta ?? {}, auth, held));
  }
  const era = core.legacyEra();
  if (!(era instanceof Promise)) return legacy(era, core, request, message, auth, held);
  return era.then(
    (loaded) => legacy(loaded, core, request, message, auth, held),
    (error: unknown) =>
      unavailable(error, message.kind === 'request' ? message.message.id : undefined),
  );
}

/** A legacy message, answered by its session (or without one where the revision allows). */
function legacy(
  era: LegacyEra,
  core: RoutedEndpoint,
  request: IncomingRequest,
  message: JsonRpcMessage,
  auth: AuthInfo | undefined,
  held: RequestLoad,
): Answer | Promise<Answer> {
  const id = message.kind === 'request' ? message.message.id : undefined;
  try {
    const outcome = era.handleLegacy(core, request, message, auth, held);
    if (!(outcome instanceof Promise)) return start(core, outcome);
    return outcome.then(
      (ready) => start(core, ready),
      (error: unknown) => unavailable(error, id),
    );
  } catch (error) {
    return unavailable(error, id);
  }
}

/**
 * Runs a prepared request (counted in flight, reported once it ended) and answers with its
 * exchange's answer; an answer made without running anything passes through.
 */
function start(
  core: RoutedEndpoint,
  outcome: Answer | PreparedCall<ModernContext> | PreparedCall<LegacyContext>,
): Answer | Promise<Answer> {
  if (!(outcome instanceof PreparedCall)) return outcome;
  void core.requests.run(outcome);
  return outcome.ctx.exchange.ready;
}

/** A 2025-03-26 batch: every request among its elements runs, the answers make one. */
async function batch(
  core: RoutedEndpoint,
  request: IncomingRequest,
  values: unknown[],
  auth: AuthInfo | undefined,
  held: RequestLoad,
): Promise<Answer> {
  const era = await core.legacyEra();
  const parts = await era.prepareBatch(core, request, values, auth, held);
  if (parts instanceof Reply) return parts;
  const answers = parts.map((part) =>
    typeof part === 'string'
      ? part
      : part instanceof Promise
        ? part.then((ready: LegacyOutcome) => start(core, ready))
        : start(core, part),
  );
  return era.combineBatch(await Promise.all(answers));
}

/** A legacy request to a handler that serves 2026-07-28 only: name the versions it serves. */
function modernOnly(
  core: RoutedEndpoint,
  request: IncomingRequest,
  id: RequestId,
  rpc: { method: string; params?: JsonObject },
): Reply {
  const requested =
    rpc.method === 'initialize'
      ? rpc.params?.protocolVersion
      : (request.headers.get(HEADER.protocolVersion)?.trim() ?? DEFAULT_LEGACY_VERSION);
  return refuse(
    'unsupported-version',
    400,
    ErrorCode.UnsupportedProtocolVersion,
    `Unsupported protocol version: core server speaks ${MODERN_VERSION}`,
    id,
    {
      supported: core.supported,
      requested,
    },
  );
}
