/**
 * What registration checks before it compiles anything. A plain-JavaScript caller has no compiler
 * to catch a misspelt or renamed option, and an ignored option fails silently (a tool without
 * validation), so each is refused with the name to use.
 *
 * @module
 */
import { checkOptionKeys } from '../schema/option-keys.ts';

/** Option names of earlier edge-mcp releases, refused with the name to use instead. */
export const RENAMED_TOOL_OPTIONS: Readonly<Record<string, string>> = {
  input: 'inputSchema',
  output: 'outputSchema',
};
export const RENAMED_PROMPT_OPTIONS: Readonly<Record<string, string>> = {
  arguments: 'argsSchema',
};

/** Throws unless `name` is a valid tool name (1-128 of `[A-Za-z0-9_.-]`). */
export function checkToolName(name: unknown): void {
  if (typeof name !== 'string' || !/^[A-Za-z0-9_.-]{1,128}$/.test(name))
    throw new TypeError(`Invalid tool name "${String(name)}": use 1-128 of [A-Za-z0-9_.-]`);
}

/**
 * Throws unless `options` is an object of `known` keys: an old name gets its new one (checked
 * first, as it is the likelier mistake), any other unknown key the nearest known one.
 */
export function checkOptions(
  options: unknown,
  what: string,
  known: readonly string[],
  renamed: Readonly<Record<string, string>> = {},
): void {
  if (typeof options !== 'object' || options === null)
    throw new TypeError(`${what}: options must be an object`);
  for (const [old, name] of Object.entries(renamed))
    if (old in options)
      throw new TypeError(
        `${what}: the option is named ${name}, not ${old} (as in the MCP SDKs and on the wire)`,
      );
  checkOptionKeys(options, known, what);
}

export function checkHandler(handler: unknown, what: string): void {
  if (typeof handler !== 'function') throw new TypeError(`${what}: the handler must be a function`);
}
