/**
 * What a tool or prompt registration compiles to, once: its options checked, its schemas
 * compiled (JSON Schema exported, validator kept) and its wire definition built.
 *
 * @module
 */
import { DEFAULTS } from '../defaults.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import {
  compileObjectSchema,
  type JsonSchema,
  type Schema,
  type SchemaShape,
} from '../schema/standard.ts';
import {
  PROMPT_OPTION_KEYS,
  type PromptOptions,
  type SchemaOption,
  TOOL_OPTION_KEYS,
  type ToolOptions,
} from './options.ts';
import { paramHeadersOf } from './param-headers.ts';
import {
  checkHandler,
  checkOptions,
  checkToolName,
  RENAMED_PROMPT_OPTIONS,
  RENAMED_TOOL_OPTIONS,
} from './registration-checks.ts';
import type { PromptEntry, ToolEntry } from './registry.ts';
import { strip } from './strip.ts';
import { visibilityOf } from './visibility.ts';

export function toolEntry(
  name: string,
  options: ToolOptions<SchemaOption, SchemaOption>,
  handler: unknown,
): ToolEntry {
  checkToolName(name);
  const what = `tool ${name}`;
  checkOptions(options, what, TOOL_OPTION_KEYS, RENAMED_TOOL_OPTIONS);
  checkHandler(handler, what);
  const input = compileObjectSchema(options.inputSchema, 'input', what, 'inputSchema');
  const output =
    options.outputSchema === undefined
      ? undefined
      : compileObjectSchema(options.outputSchema, 'output', what, 'outputSchema');
  const definition: JsonObject = strip({
    name,
    title: options.title,
    description: options.description,
    inputSchema: input.json,
    outputSchema: output?.json,
    annotations: options.annotations,
    icons: options.icons,
    _meta: options._meta,
  });
  return {
    scopes: options.scopes,
    visible: visibilityOf(options.visibleTo, what),
    taskSupport: options.taskSupport === 'forbidden' ? undefined : options.taskSupport,
    taskStart: options.taskStart ?? 'immediate',
    maxAttempts: attemptsOf(options, what),
    name,
    definition,
    input,
    output,
    paramHeaders: paramHeadersOf(input.json, name),
    handler: handler as ToolEntry['handler'],
  };
}

export function promptEntry(
  name: string,
  options: PromptOptions<Schema | SchemaShape | undefined>,
  handler: unknown,
): PromptEntry {
  const what = `prompt ${name}`;
  checkOptions(options, what, PROMPT_OPTION_KEYS, RENAMED_PROMPT_OPTIONS);
  checkHandler(handler, what);
  const args = compileObjectSchema(options.argsSchema, 'input', what, 'argsSchema');
  const definition = strip({
    name,
    title: options.title,
    description: options.description,
    arguments: promptArguments(args.json),
    icons: options.icons,
    _meta: options._meta,
  });
  return {
    scopes: options.scopes,
    visible: visibilityOf(options.visibleTo, what),
    name,
    definition,
    args,
    complete: options.complete ?? {},
    handler: handler as PromptEntry['handler'],
  };
}

/** A prompt's `arguments` list from an object JSON Schema. */
function promptArguments(json: JsonSchema): JsonObject[] | undefined {
  const properties = json.properties as Record<string, JsonObject> | undefined;
  if (!properties) return undefined;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) =>
    strip({ name, description: property.description, required: required.has(name) }),
  );
}

/** Runs a task of the tool may have: its `retry`, else 3 for an idempotent tool, else 1. */
function attemptsOf(options: ToolOptions<SchemaOption, SchemaOption>, what: string): number {
  const retry = options.retry;
  if (retry === undefined)
    return options.annotations?.idempotentHint === true ? DEFAULTS.tasks.idempotentAttempts : 1;
  const attempts = (retry as { attempts?: unknown } | null)?.attempts;
  if (typeof attempts !== 'number' || !Number.isInteger(attempts) || attempts < 1)
    throw new TypeError(`${what}: retry.attempts must be an integer of at least 1`);
  return attempts;
}
