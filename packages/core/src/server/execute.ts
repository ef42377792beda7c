import { invalidParams, McpError, rpcError, StoreUnavailableError } from '../errors.ts';
import type { ExchangeBase } from '../http/exchange-base.ts';
import { storageUnavailable } from '../http/responses.ts';
import { ErrorCode } from '../protocol/constants.ts';
import { errorMessage, type JsonObject } from '../protocol/jsonrpc.ts';
import type { MethodContext, MethodSpec } from './methods.ts';
import { InsufficientScopeError, insufficientScope } from './resource-server.ts';

/** A context whose exchange replies (either era's). */
export interface ExecutionContext extends MethodContext {
  readonly exchange: ExchangeBase;
}

/** What differs between the eras around one method: the wire shape of results and errors. */
export interface EraRules<C extends ExecutionContext> {
  /** Code of a resource nobody serves: -32602 in 2026-07-28, -32002 in the legacy revisions. */
  readonly resourceNotFound: number;
  /**
   * Whether an McpError's own HTTP status goes out (2026-07-28: 404 for an unknown method, 400
   * for bad metadata); legacy errors travel in a 200 like any JSON-RPC message.
   */
  readonly errorStatus: boolean;
  /** Before the method runs (2026-07-28: verify the answers of earlier input rounds). */
  prepare?(ctx: C, params: JsonObject): undefined | Promise<void>;
  /** The serialized result message of a method that completed. */
  finish(ctx: C, result: JsonObject, spec: MethodSpec<C>): string;
  /**
   * An error the era answers with a result instead (2026-07-28: input required); `undefined`
   * when it is an error.
   */
  recover?(ctx: C, params: JsonObject, error: unknown): Promise<string> | undefined;
}

/**
 * One request an era made ready to run: its exchange is built and follows the HTTP request, its
 * method is found. The era returns it and routing runs it (`RequestAccounting.run`), so the
 * request path only runs down: no era calls back into the handler.
 */
export class PreparedCall<C extends ExecutionContext = ExecutionContext> implements ReadyCall {
  readonly rules: EraRules<C>;
  readonly ctx: C;
  readonly spec: MethodSpec<C>;
  readonly params: JsonObject;
  /** The legacy session the request runs in, for the request log. */
  readonly sessionId: string | undefined;

  constructor(
    rules: EraRules<C>,
    ctx: C,
    spec: MethodSpec<C>,
    params: JsonObject,
    sessionId?: string,
  ) {
    this.rules = rules;
    this.ctx = ctx;
    this.spec = spec;
    this.params = params;
    this.sessionId = sessionId;
  }

  /** Runs the method and replies through the exchange (see `execute`). */
  run(): Promise<void> | undefined {
    return execute(this.rules, this.ctx, this.spec, this.params);
  }
}

/** What routing reads of a prepared call, whichever era's context it carries. */
export interface ReadyCall {
  readonly ctx: ExecutionContext;
  readonly sessionId: string | undefined;
  run(): Promise<void> | undefined;
}

/**
 * Runs one method and replies through the exchange: a result (the era's finish), a recovered
 * result, or a JSON-RPC error. A method that answers synchronously (a synchronous tool) replies
 * before this returns, with no promise made: the promise, and its microtask hops, only come with
 * something to wait for (a prepare step, an async handler, a recovery).
 */
export function execute<C extends ExecutionContext>(
  rules: EraRules<C>,
  ctx: C,
  spec: MethodSpec<C>,
  params: JsonObject,
): Promise<void> | undefined {
  // Already over (the client left, or shutdown or the session's end came, while the body was
  // read): its answer is settled and nobody would see the work; a listen would wait for ever.
  if (ctx.exchange.aborted) return undefined;
  try {
    checkProgressToken(ctx);
    const prepared = rules.prepare?.(ctx, params);
    if (prepared !== undefined) return finishLater(rules, ctx, spec, params, prepared);
    const result = spec.run(ctx, params);
    if (result instanceof Promise) return finishLater(rules, ctx, spec, params, undefined, result);
    if (result !== undefined) ctx.exchange.reply(rules.finish(ctx, result, spec));
    return undefined;
  } catch (error) {
    return fail(rules, ctx, params, error);
  }
}

/**
 * The rest of a method that waits: for its prepare step (then it runs), or for the handler's
 * `pending` result.
 */
async function finishLater<C extends ExecutionContext>(
  rules: EraRules<C>,
  ctx: C,
  spec: MethodSpec<C>,
  params: JsonObject,
  prepared: Promise<void> | undefined,
  pending?: Promise<JsonObject | undefined>,
): Promise<void> {
  try {
    if (prepared !== undefined) await prepared;
    const result = await (pending ?? spec.run(ctx, params));
    if (result !== undefined) ctx.exchange.reply(rules.finish(ctx, result, spec));
  } catch (error) {
    await fail(rules, ctx, params, error);
  }
}

/** The answer to a method that threw: recovered by the era, or a JSON-RPC error. */
function fail<C extends ExecutionContext>(
  rules: EraRules<C>,
  ctx: C,
  params: JsonObject,
  error: unknown,
): Promise<void> | undefined {
  const exchange = ctx.exchange;
  // A cancelled request gets nothing more; its handler's rejection is the expected way out.
  if (exchange.aborted) return undefined;
  const recovered = rules.recover?.(ctx, params, error);
  // Recovering can fail too (an input-required state that cannot be signed): that failure is
  // the answer then, never a rejection left to the caller.
  if (recovered !== undefined)
    return recovered.then(
      (json) => exchange.reply(json),
      (later: unknown) => answerError(rules, ctx, later),
    );
  answerError(rules, ctx, error);
  return undefined;
}

/** A JSON-RPC error (or the HTTP answer some errors are) for a method that threw. */
function answerError<C extends ExecutionContext>(rules: EraRules<C>, ctx: C, error: unknown): void {
  const exchange = ctx.exchange;
  if (exchange.aborted) return;
  if (error instanceof StoreUnavailableError) {
    // Storage a method needs (a task store) cannot be reached: 503 with Retry-After.
    const reply = storageUnavailable(error.retryAfterSeconds, exchange.id);
    exchange.errorCode = ErrorCode.ServerError;
    exchange.reply(reply.body as string, reply.status, reply.headers);
    return;
  }
  const body = rpcError(error, rules.resourceNotFound);
  exchange.errorCode = body.code;
  // What the client is not told (an internal error's detail) is the request log's.
  if (body.code === ErrorCode.InternalError && !(error instanceof McpError))
    exchange.failure = error;
  if (error instanceof InsufficientScopeError) {
    // An HTTP answer in both eras: the client steps up its authorization on the 403.
    exchange.reply(
      errorMessage(exchange.id, body),
      403,
      insufficientScope(ctx.endpoint.resourceServer, error.scopes, () => ctx.request.url),
    );
    return;
  }
  const status = rules.errorStatus && error instanceof McpError ? error.status : 200;
  exchange.reply(errorMessage(exchange.id, body), status);
}

/**
 * A progress token is repeated in every progress notification (and stored with each for a
 * resume): a string one is bounded by `limits.maxProgressTokenLength`.
 */
function checkProgressToken(ctx: ExecutionContext): void {
  const token = ctx.meta.progressToken;
  if (token === undefined || typeof token === 'number') return;
  const max = ctx.endpoint.limits.maxProgressTokenLength;
  if (typeof token !== 'string')
    throw invalidParams('_meta.progressToken must be a string or a number');
  if (token.length > max)
    throw invalidParams(`_meta.progressToken is longer than ${max} characters`);
}
