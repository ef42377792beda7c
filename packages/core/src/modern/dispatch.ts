import { McpError, methodNotFound } from '../errors.ts';
import { Exchange } from '../http/exchange.ts';
import type { HandlerCore } from '../http/handler.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import { type Answer, errorResponse } from '../http/responses.ts';
import { ErrorCode, META, MODERN_VERSION } from '../protocol/constants.ts';
import {
  errorMessage,
  isObject,
  type JsonObject,
  type JsonRpcRequest,
  resultMessage,
} from '../protocol/jsonrpc.ts';
import {
  advertises,
  findTool,
  InputRequired,
  type ListName,
  listResult,
  readResource,
  rpcError,
} from '../server/features.ts';
import { FEATURE_METHODS } from '../server/methods.ts';
import { ModernContext } from './context.ts';
import { bindingOf } from './request-state.ts';
import { listen } from './subscriptions.ts';
import {
  TARGET_PARAM,
  validateMethodHeaders,
  validateModernMeta,
  validateParamHeaders,
} from './validate.ts';

/** A method's result, or a promise of it when it has something to wait for. */
type Method = (
  core: HandlerCore,
  ctx: ModernContext,
  params: JsonObject,
) => JsonObject | undefined | Promise<JsonObject | undefined>;

/**
 * Serves one 2026-07-28 request: validation, then the method, answered as JSON or SSE by the
 * exchange. Returns once the response (or its stream) is ready; the handler may still be running.
 */
export function handleModern(
  core: HandlerCore,
  request: IncomingRequest,
  rpc: JsonRpcRequest,
  meta: JsonObject,
): Answer | Promise<Answer> {
  const params = rpc.params ?? {};
  let method: Method | undefined;
  try {
    validateModernMeta(request.headers, meta, core.supported);
    validateMethodHeaders(request.headers, rpc);
    method = METHODS[rpc.method];
    if (!method || !advertises(core.server, rpc.method)) throw methodNotFound(rpc.method);
    if (rpc.method === 'tools/call')
      validateParamHeaders(request.headers, findTool(core.server, params), params.arguments);
  } catch (error) {
    if (error instanceof McpError)
      return errorResponse(error.status, error.code, error.message, rpc.id, error.data);
    throw error;
  }
  const exchange = new Exchange(
    core.root,
    rpc.id,
    rpc.method,
    core.keepAliveMs,
    core.streamAfterMs,
  );
  exchange.followRequest(request);
  const target = params.name ?? params.uri;
  if (typeof target === 'string') exchange.name = target;
  const ctx = new ModernContext(exchange, meta);
  void core.run(exchange, execute(core, ctx, method, params), MODERN_VERSION);
  return exchange.response;
}

/** Runs the method and replies through the exchange: a result, an input-required result or an error. */
async function execute(
  core: HandlerCore,
  ctx: ModernContext,
  method: Method,
  params: JsonObject,
): Promise<void> {
  const exchange = ctx.exchange;
  // Already over (the client left, or shutdown began, while the body was read): its answer is
  // settled and nobody would see the work; a listen would wait for an abort that already came.
  if (exchange.aborted) return;
  try {
    const key = TARGET_PARAM[ctx.method];
    if (key !== undefined) {
      ctx.mayAskInput = true;
      // Most calls carry no earlier answers: nothing to verify, nothing to wait for.
      if (params.inputResponses !== undefined || params.requestState !== undefined)
        await collectAnswers(core, ctx, params, key);
    }
    const result = await method(core, ctx, params);
    if (result === undefined) return;
    result.resultType ??= 'complete';
    if (isObject(result._meta)) {
      result._meta = { ...result._meta, [META.serverInfo]: core.serverInfo };
      exchange.reply(resultMessage(exchange.id, result));
    } else {
      // The usual case: splice the `_meta` serialized once per handler instead of building it per result.
      const json = JSON.stringify(result);
      const body = `${json.slice(0, -1)}${json.length > 2 ? ',' : ''}${core.serverInfoMeta}}`;
      exchange.reply(`{"jsonrpc":"2.0","id":${JSON.stringify(exchange.id)},"result":${body}}`);
    }
  } catch (error) {
    // A cancelled request gets nothing more; its handler's rejection is the expected way out.
    if (exchange.aborted) return;
    if (error instanceof InputRequired) {
      const key = TARGET_PARAM[ctx.method] ?? 'name';
      const requestState = await core.signer.sign(binding(ctx, params, key), ctx.answers ?? {});
      exchange.reply(
        resultMessage(exchange.id, {
          resultType: 'input_required',
          inputRequests: error.requests,
          requestState,
          _meta: { [META.serverInfo]: core.serverInfo },
        }),
      );
      return;
    }
    const body = rpcError(error);
    exchange.errorCode = body.code;
    exchange.reply(errorMessage(exchange.id, body), error instanceof McpError ? error.status : 200);
  }
}

/** Verified answers of earlier rounds plus this round's inputResponses. */
async function collectAnswers(
  core: HandlerCore,
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
      : await core.signer.verify(params.requestState, binding(ctx, params, key));
  if (earlier || responses) ctx.answers = { ...earlier, ...(responses as JsonObject | undefined) };
}

function binding(ctx: ModernContext, params: JsonObject, key: 'name' | 'uri'): string {
  return bindingOf(ctx.method, String(params[key]), params.arguments);
}

function cached(core: HandlerCore, result: JsonObject): JsonObject {
  result.ttlMs = core.cache.ttlMs;
  result.cacheScope = core.cache.cacheScope;
  return result;
}

function page(core: HandlerCore, kind: ListName, field: string, params: JsonObject): JsonObject {
  return cached(core, listResult(core.server, kind, field, params.cursor, core.pageSize));
}

const METHODS: Record<string, Method> = {
  ...FEATURE_METHODS,
  'server/discover': (core) => {
    const result: JsonObject = {
      supportedVersions: core.supported,
      capabilities: core.server.capabilities(),
    };
    if (core.server.info.instructions) result.instructions = core.server.info.instructions;
    return cached(core, result);
  },
  'tools/list': (core, _ctx, params) => page(core, 'tools', 'tools', params),
  'resources/list': (core, _ctx, params) => page(core, 'resources', 'resources', params),
  'resources/templates/list': (core, _ctx, params) =>
    page(core, 'templates', 'resourceTemplates', params),
  'prompts/list': (core, _ctx, params) => page(core, 'prompts', 'prompts', params),
  'resources/read': async (core, ctx, params) =>
    cached(core, await readResource(core.server, params.uri, ctx, ErrorCode.InvalidParams)),
  'subscriptions/listen': (core, ctx, params) => listen(core, ctx, params),
};
