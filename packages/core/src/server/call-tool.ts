import { internalError as internal, McpError } from '../errors.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { formatIssues, parseWith } from '../schema/standard.ts';
import type { RequestContext } from './context.ts';
import { InputRequired } from './input-required.ts';
import type { ToolEntry } from './registry.ts';
import type { ToolResult } from './types.ts';

/** What a tool call reads of its context: the handler's, and where a failure's detail goes. */
export interface ToolCallContext extends RequestContext {
  noteFailure(error: unknown): void;
}

/**
 * `tools/call` without the wire shape of either era. A synchronous validator and handler give a
 * synchronous result: promises (and their microtask hops) are only made where something awaits.
 * Protocol errors are thrown (synchronously or as a rejection); any other failure of the handler
 * becomes a tool execution error the model can read.
 */
export function callTool(
  tool: ToolEntry,
  params: JsonObject,
  ctx: ToolCallContext,
): JsonObject | Promise<JsonObject> {
  const args = parseWith(tool.input, params.arguments ?? {}, 'tool', tool.name);
  if (args instanceof Promise) return args.then((valid) => runTool(tool, valid, ctx));
  return runTool(tool, args, ctx);
}

function runTool(
  tool: ToolEntry,
  args: unknown,
  ctx: ToolCallContext,
): JsonObject | Promise<JsonObject> {
  let value: ToolResult | Promise<ToolResult>;
  try {
    value = tool.handler(args, ctx);
  } catch (error) {
    return toolFailure(tool, error, ctx);
  }
  if (isThenable(value))
    return Promise.resolve(value).then(
      (settled) => toolResult(tool, settled),
      (error: unknown) => toolFailure(tool, error, ctx),
    );
  return toolResult(tool, value);
}

/**
 * The error types the engine throws for a bug (`fn is not a function`, a stack overflow, a
 * malformed URI): their text describes the server's code, not the tool's result.
 */
const ENGINE_ERRORS = [TypeError, RangeError, ReferenceError, SyntaxError, EvalError, URIError];

/**
 * A handler that threw: a tool execution error the model can read, with the message of an
 * `Error` the tool threw on purpose; an engine error's text stays in the request log and the
 * trace, and the model reads that the tool failed.
 */
function toolFailure(tool: ToolEntry, error: unknown, ctx: ToolCallContext): JsonObject {
  if (error instanceof McpError || error instanceof InputRequired || ctx.signal.aborted)
    throw error;
  let text: string;
  if (ENGINE_ERRORS.some((type) => error instanceof type)) {
    ctx.noteFailure(error);
    text = `Tool ${tool.name} failed with an internal error`;
  } else text = error instanceof Error ? error.message : String(error);
  return { content: [{ type: 'text', text }], isError: true };
}

function toolResult(tool: ToolEntry, value: ToolResult): JsonObject | Promise<JsonObject> {
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (!isResultObject(value)) throw internal(notAResult(tool.name, value));
  const result: JsonObject = { ...value };
  if (tool.output && !value.isError) {
    if (value.structuredContent === undefined)
      throw internal(`tool ${tool.name} returned no structuredContent`);
    const check = tool.output.validate?.(value.structuredContent);
    if (isThenable(check))
      return Promise.resolve(check).then((settled) => checkedResult(tool, result, settled));
    return checkedResult(tool, result, check);
  }
  return withContent(result);
}

function checkedResult(tool: ToolEntry, result: JsonObject, check: unknown): JsonObject {
  const issues = (check as { issues?: [] } | undefined)?.issues;
  if (issues)
    throw internal(`tool ${tool.name} returned invalid structuredContent: ${formatIssues(issues)}`);
  return withContent(result);
}

/** A structured-only result also gets its JSON as text content, for clients that read only text. */
function withContent(result: JsonObject): JsonObject {
  if (!result.content) {
    result.content =
      result.structuredContent === undefined
        ? []
        : [{ type: 'text', text: JSON.stringify(result.structuredContent) }];
  }
  return result;
}

/** A result object says what it carries: content, structured content, or that it is an error. */
function isResultObject(value: unknown): value is Exclude<ToolResult, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const result = value as { content?: unknown; structuredContent?: unknown; isError?: unknown };
  return (
    Array.isArray(result.content) ||
    result.structuredContent !== undefined ||
    typeof result.isError === 'boolean'
  );
}

/**
 * A handler that returns something else (a number, nothing, plain data) is a mistake a caller
 * in plain JavaScript has no compiler to catch; it gets an error that says what to return.
 */
function notAResult(name: string, value: unknown): string {
  const kind =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? 'an array'
        : typeof value === 'object'
          ? 'an object without content or structuredContent'
          : typeof value === 'undefined'
            ? 'nothing'
            : `a ${typeof value}`;
  return `tool ${name} returned ${kind}: return a string, { content: [...] } or { structuredContent: ... }`;
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
