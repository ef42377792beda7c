/**
 * The MCP SDK v1 positional forms of `tool()` and `prompt()`, for code moving over from it:
 * `tool(name, shape, handler)`, `tool(name, description, shape, handler)`, both with annotations
 * after the shape, and `prompt(name, argsShape, handler)` with or without a description. Each
 * becomes the options object it stands for, so its shape is compiled and validated exactly as
 * `inputSchema: shape` is. SDK v1's forms without a schema are refused: it calls their handler
 * with `(extra)` alone where ours gets `(args, ctx)`, so such a handler would take its arguments
 * for its context.
 *
 * @module
 */
import { nearestName } from '../schema/option-keys.ts';
import { isStandard } from '../schema/standard.ts';
import { RENAMED_PROMPT_OPTIONS, RENAMED_TOOL_OPTIONS } from './registration-checks.ts';

/** What a call's arguments after the name stand for: the options object and the handler. */
export type Form = readonly [options: unknown, handler: unknown];

/**
 * The options that take a schema and their names in earlier releases: a Standard Schema under
 * one of these (or a slip of the current ones, `inputSchem`) is an option, not a shape's property.
 */
interface SchemaOptions {
  readonly names: readonly string[];
  readonly old: Readonly<Record<string, string>>;
}
const TOOL_SCHEMA_OPTIONS: SchemaOptions = {
  names: ['inputSchema', 'outputSchema'],
  old: RENAMED_TOOL_OPTIONS,
};
const PROMPT_SCHEMA_OPTIONS: SchemaOptions = { names: ['argsSchema'], old: RENAMED_PROMPT_OPTIONS };

/** Two edits: a slip of the hand, not another word (`inputs` is a property, not `inputSchema`). */
const SLIP = 2;

function isSchemaOption(key: string, options: SchemaOptions): boolean {
  return Object.hasOwn(options.old, key) || nearestName(key, options.names, SLIP) !== undefined;
}

/** `tool(name, …rest)` as `tool(name, options, handler)`. */
export function toolForm(name: string, rest: readonly unknown[]): Form {
  const what = `tool ${name}`;
  const call = `server.tool('${name}'`;
  const [a, b, c, d] = rest;
  switch (rest.length) {
    case 1:
      if (typeof a === 'function')
        throw noSchema(what, 'tool(name, handler)', `${call}, {}, (args, ctx) => …)`);
      return [a, undefined];
    case 2:
      if (typeof a === 'string' && typeof b === 'function')
        throw noSchema(
          what,
          'tool(name, description, handler)',
          `${call}, { description }, (args, ctx) => …)`,
        );
      if (isStandard(a)) throw schemaNotOptions(what, `${call}, { inputSchema: schema }, …)`);
      if (typeof a === 'string') break;
      checkRenamed(a, RENAMED_TOOL_OPTIONS, what, call);
      return isShape(a, TOOL_SCHEMA_OPTIONS) ? [{ inputSchema: a }, b] : [a, b];
    case 3:
      if (typeof a === 'string' && isShapeAfterDescription(b, TOOL_SCHEMA_OPTIONS))
        return [{ description: a, inputSchema: nonEmpty(b) }, c];
      if (typeof a === 'string' && isAnnotations(b, TOOL_SCHEMA_OPTIONS))
        throw noSchema(
          what,
          'tool(name, description, annotations, handler)',
          `${call}, { description, annotations }, (args, ctx) => …)`,
        );
      if (isShape(a, TOOL_SCHEMA_OPTIONS) && isAnnotations(b, TOOL_SCHEMA_OPTIONS))
        return [{ inputSchema: a, annotations: b }, c];
      break;
    case 4:
      if (
        typeof a === 'string' &&
        isShapeAfterDescription(b, TOOL_SCHEMA_OPTIONS) &&
        isAnnotations(c, TOOL_SCHEMA_OPTIONS)
      )
        return [{ description: a, inputSchema: nonEmpty(b), annotations: c }, d];
      break;
  }
  throw unexpected(
    what,
    rest,
    `${call}, { description, inputSchema, annotations, … }, (args, ctx) => …)`,
  );
}

/** `prompt(name, …rest)` as `prompt(name, options, handler)`. */
export function promptForm(name: string, rest: readonly unknown[]): Form {
  const what = `prompt ${name}`;
  const call = `server.prompt('${name}'`;
  const [a, b, c] = rest;
  switch (rest.length) {
    case 1:
      if (typeof a === 'function')
        throw noSchema(what, 'prompt(name, handler)', `${call}, {}, (args, ctx) => …)`);
      return [a, undefined];
    case 2:
      if (typeof a === 'string' && typeof b === 'function')
        throw noSchema(
          what,
          'prompt(name, description, handler)',
          `${call}, { description }, (args, ctx) => …)`,
        );
      if (isStandard(a)) throw schemaNotOptions(what, `${call}, { argsSchema: schema }, …)`);
      if (typeof a === 'string') break;
      checkRenamed(a, RENAMED_PROMPT_OPTIONS, what, call);
      return isShape(a, PROMPT_SCHEMA_OPTIONS) ? [{ argsSchema: a }, b] : [a, b];
    case 3:
      if (typeof a === 'string' && isShapeAfterDescription(b, PROMPT_SCHEMA_OPTIONS))
        return [{ description: a, argsSchema: nonEmpty(b) }, c];
      break;
  }
  throw unexpected(what, rest, `${call}, { description, argsSchema, … }, (args, ctx) => …)`);
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isStandard(value);
}

/**
 * Whether `value` is a shape (`{ a: z.number() }`) rather than an options object: a Standard
 * Schema under a name that is not a schema option's (see `isSchemaOption`). An object of those
 * names alone (`{ inputSchema: z.object(…) }`, `{ inputSchem: … }`) is the options object it
 * looks like, so a misspelt option is refused rather than taken for an argument; a shape mixing
 * in plain values is one still, refused by `compileSchema` with what to write.
 */
function isShape(value: unknown, schemaOptions: SchemaOptions): value is object {
  return (
    isObject(value) &&
    Object.entries(value).some(
      ([key, item]) => isStandard(item) && !isSchemaOption(key, schemaOptions),
    )
  );
}

/** After a description, `{}` is the empty shape (a tool without arguments), as in SDK v1. */
function isShapeAfterDescription(value: unknown, schemaOptions: SchemaOptions): boolean {
  return isShape(value, schemaOptions) || (isObject(value) && Object.keys(value).length === 0);
}

/** SDK v1's annotations: an object that is not a shape, nor options put in the wrong place. */
function isAnnotations(value: unknown, schemaOptions: SchemaOptions): boolean {
  return (
    isObject(value) &&
    !isShape(value, schemaOptions) &&
    !Object.keys(value).some((key) => isSchemaOption(key, schemaOptions))
  );
}

/** An empty shape is no schema: the tool takes any object, as without one. */
function nonEmpty(shape: unknown): unknown {
  return Object.keys(shape as object).length === 0 ? undefined : shape;
}

/**
 * `{ input: z.object(…) }` is an option under its old name (refused by `checkOptions`), but
 * `{ input: z.string() }` may be an SDK v1 shape with an argument named `input`: the refusal
 * says how to write either.
 */
function checkRenamed(
  value: unknown,
  renamed: Readonly<Record<string, string>>,
  what: string,
  call: string,
): void {
  if (!isObject(value) || !Object.values(value).every(isStandard)) return;
  const old = Object.keys(value).find((key) => Object.hasOwn(renamed, key));
  if (old === undefined) return;
  const name = renamed[old] as string;
  throw new TypeError(
    `${what}: the option is named ${name}, not ${old} (as in the MCP SDKs and on the wire); for an argument named ${old}, write ${call}, { ${name}: { ${old}: … } }, handler)`,
  );
}

function noSchema(what: string, form: string, instead: string): TypeError {
  return new TypeError(
    `${what}: ${form} is the MCP SDK v1 form, whose handler gets (extra) alone; here a handler gets (args, ctx): write ${instead}`,
  );
}

function schemaNotOptions(what: string, instead: string): TypeError {
  return new TypeError(`${what}: the schema goes in the options object: write ${instead}`);
}

function unexpected(what: string, rest: readonly unknown[], instead: string): TypeError {
  const kinds = rest.map((value) => (value === null ? 'null' : typeof value)).join(', ');
  return new TypeError(`${what}: unexpected arguments after the name (${kinds}); write ${instead}`);
}
