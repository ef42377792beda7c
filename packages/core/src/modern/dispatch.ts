import type { AuthInfo } from '../auth/auth-info.ts';
import { McpError, methodNotFound } from '../errors.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import type { RefusalReason } from '../http/refusal.ts';
import { type Answer, refuse } from '../http/responses.ts';
import type { RequestLoad } from '../lifecycle/in-flight-load.ts';
import { ErrorCode, META, TASKS_EXTENSION } from '../protocol/constants.ts';
import {
  isObject,
  type JsonObject,
  type JsonRpcRequest,
  resultMessage,
} from '../protocol/jsonrpc.ts';
import { type EraRules, PreparedCall } from '../server/execute.ts';
import { findTool } from '../server/features.ts';
import { InputRequired } from '../server/input-required.ts';
import { advertises } from '../server/lists.ts';
import { FEATURE_METHODS, type MethodSpec } from '../server/methods.ts';
import { taskToolsCall } from '../tasks/tools-call.ts';
import { ModernContext } from './context.ts';
import type { ModernEndpoint } from './endpoint.ts';
import { ModernExchange } from './exchange.ts';
import { bindingOf } from './request-state.ts';
import { listen } from './subscriptions.ts';
import { MODERN_TASK_METHODS, MODERN_TASKS } from './tasks.ts';
import {
  TARGET_PARAM,
  validateMethodHeaders,
  validateModernMeta,
  validateParamHeaders,
} from './validate.ts';

/**
 * Prepares one 2026-07-28 request: validation (a refusal is answered at once), then its exchange
 * and method, returned for routing to run; the exchange answers as JSON or SSE.
 */
export function handleModern(
  endpoint: ModernEndpoint,
  request: IncomingRequest,
  rpc: JsonRpcRequest,
  meta: JsonObject,
  auth: AuthInfo | undefined,
  held?: RequestLoad,
): Answer | PreparedCall<ModernContext> {
  const params = rpc.params ?? {};
  let spec: MethodSpec<ModernContext> | undefined;
  try {
    validateModernMeta(request.headers, meta, endpoint.supported);
    validateMethodHeaders(request.headers, rpc);
    spec = METHODS[rpc.method];
    if (!spec || !advertises(endpoint.registry, rpc.method)) throw methodNotFound(rpc.method);
    if (rpc.method === 'tools/call')
      validateParamHeaders(
        request.headers,
        findTool(endpoint.registry, params, auth),
        params.arguments,
      );
  } catch (error) {
    if (error instanceof McpError)
      return refuse(refusalOf(error), error.status, error.code, error.message, rpc.id, error.data);
    throw error;
  }
  const exchange = new ModernExchange(endpoint.root, rpc.id, rpc.method, endpoint.streams);
  exchange.followRequest(request);
  exchange.hold(held);
  const target = params.name ?? params.uri;
  if (typeof target === 'string') exchange.name = target;
  const ctx = new ModernContext(endpoint, exchange, meta, auth);
  return new PreparedCall(MODERN, ctx, spec, params);
}

/** Why validation refused a request, for the request log. */
function refusalOf(error: McpError): RefusalReason {
  if (error.code === ErrorCode.MethodNotFound) return 'method-not-found';
  if (error.code === ErrorCode.UnsupportedProtocolVersion) return 'unsupported-version';
  return 'invalid-headers';
}

/** The wire shape of 2026-07-28 around the shared methods. */
const MODERN: EraRules<ModernContext> = {
  resourceNotFound: ErrorCode.InvalidParams,
  errorStatus: true,
  prepare(ctx, params) {
    const key = TARGET_PARAM[ctx.method];
    if (key === undefined) return;
    ctx.mayAskInput = true;
    // Most calls carry no earlier answers: nothing to verify, nothing to wait for.
    if (params.inputResponses !== undefined || params.requestState !== undefined)
      return collectAnswers(ctx, params, key);
  },
  finish(ctx, result, spec) {
    const endpoint = ctx.endpoint;
    result.resultType ??= 'complete';
    if (spec.cacheable) {
      result.ttlMs = endpoint.cache.ttlMs;
      // Lists and reads that differ per caller are never for a shared cache.
      const personal =
        endpoint.registry.restricted || endpoint.resourceServer?.hideUnauthorized === true;
      result.cacheScope = personal ? 'private' : endpoint.cache.cacheScope;
    }
    if (isObject(result._meta)) {
      result._meta = { ...result._meta, [META.serverInfo]: endpoint.serverInfo };
      return resultMessage(ctx.requestId, result);
    }
    // The usual case: splice the `_meta` serialized once per handler instead of building it per result.
    const json = JSON.stringify(result);
    const body = `${json.slice(0, -1)}${json.length > 2 ? ',' : ''}${endpoint.serverInfoMeta}}`;
    return `{"jsonrpc":"2.0","id":${JSON.stringify(ctx.requestId)},"result":${body}}`;
  },
  recover(ctx, params, error) {
    if (!(error instanceof InputRequired)) return undefined;
    return inputRequired(ctx, params, error);
  },
};

async function inputRequired(
  ctx: ModernContext,
  params: JsonObject,
  error: InputRequired,
): Promise<string> {
  const key = TARGET_PARAM[ctx.method] ?? 'name';
  const asked = [...new Set([...ctx.asked, ...Object.keys(error.requests)])];
  const requestState = await ctx.endpoint.signer.sign(
    binding(ctx, params, key),
    ctx.answers ?? {},
    asked,
  );
  return resultMessage(ctx.requestId, {
    resultType: 'input_required',
    inputRequests: error.requests,
    requestState,
    _meta: { [META.serverInfo]: ctx.endpoint.serverInfo },
  });
}

/** Verified answers of earlier rounds plus this round's inputResponses. */
async function collectAnswers(
  ctx: ModernContext,
  params: JsonObject,
  key: 'name' | 'uri',
): Promise<void> {
  const responses = params.inputResponses;
  if (
    responses !== undefined &&
    (!isObject(responses) || !Object.values(responses).every(isObject))
  ) {
    throw new McpError(
      ErrorCode.InvalidParams,
      'inputResponses must be an object of result objects',
    );
  }
  const earlier =
    params.requestState === undefined
      ? undefined
      : await ctx.endpoint.signer.verify(params.requestState, binding(ctx, params, key));
  // Answers only to questions this request's state records as asked: an answer the handler never
  // asked for (or one carried over from another request or principal) is not an answer. Unknown
  // keys are ignored, as the protocol asks; the handler then asks again what is still missing.
  const asked = earlier?.asked ?? [];
  ctx.asked = asked;
  let answers: JsonObject | undefined = earlier?.answers;
  for (const [key, value] of Object.entries((responses as JsonObject | undefined) ?? {}))
    if (asked.includes(key)) answers = { ...answers, [key]: value };
  ctx.answers = answers;
}

function binding(ctx: ModernContext, params: JsonObject, key: 'name' | 'uri'): string {
  return bindingOf(ctx.auth?.principal, ctx.method, String(params[key]), params.arguments);
}

const METHODS: Readonly<Record<string, MethodSpec<ModernContext>>> = {
  ...FEATURE_METHODS,
  'tools/call': taskToolsCall(MODERN_TASKS),
  ...MODERN_TASK_METHODS,
  'server/discover': {
    run: (ctx) => {
      const endpoint = ctx.endpoint;
      const capabilities = endpoint.registry.capabilities();
      const result: JsonObject = {
        supportedVersions: endpoint.supported,
        capabilities:
          endpoint.tasks && endpoint.registry.tasks
            ? {
                ...capabilities,
                extensions: { ...(capabilities.extensions as JsonObject), [TASKS_EXTENSION]: {} },
              }
            : capabilities,
      };
      if (endpoint.instructions) result.instructions = endpoint.instructions;
      return result;
    },
    cacheable: true,
  },
  'subscriptions/listen': { run: (ctx, params) => listen(ctx, params) },
};
