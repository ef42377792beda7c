import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { invalidParams } from '../errors.ts';

export type { StandardJSONSchemaV1, StandardSchemaV1 };

/**
 * A schema edge-mcp can both validate with and advertise: a Standard Schema that also implements
 * Standard JSON Schema. zod 4 schemas are both as they are; wrap valibot schemas with
 * `toStandardJsonSchema()` from `@valibot/to-json-schema`.
 */
export type Schema<Input = unknown, Output = Input> = StandardSchemaV1<Input, Output> &
  StandardJSONSchemaV1<Input, Output>;

export type JsonSchema = Record<string, unknown>;

/**
 * An object's properties as schemas, the SDK v1 habit (`{ text: z.string() }`): accepted as the
 * object schema of those properties, validated property by property.
 */
export type SchemaShape = { readonly [key: string]: Schema };

/** Inferred output type of a schema or shape, `Record<string, unknown>` when none is given. */
export type Infer<S> =
  S extends StandardSchemaV1<unknown, infer O>
    ? O
    : S extends SchemaShape
      ? { [K in keyof S]: S[K] extends StandardSchemaV1<unknown, infer O> ? O : never }
      : Record<string, unknown>;

/** A compiled schema: the JSON Schema computed once at definition time, and the validator. */
export interface CompiledSchema {
  readonly json: JsonSchema;
  readonly validate: ((value: unknown) => unknown) | undefined;
}

/** Whether `value` is a Standard Schema (zod 4, valibot, …): an object with a `~standard` property. */
export function isStandard(value: unknown): value is StandardSchemaV1 {
  return typeof value === 'object' && value !== null && '~standard' in value;
}

/**
 * Compiles a schema given as a Standard Schema (zod 4, wrapped valibot), as a shape of them, or as
 * a plain JSON Schema object (advertised as is, not validated). The JSON Schema export runs once,
 * here; anything that cannot be both validated and advertised is refused with what to write.
 */
export function compileSchema(
  schema: Schema | SchemaShape | JsonSchema | undefined,
  io: 'input' | 'output',
  what: string,
): CompiledSchema {
  if (schema === undefined) return { json: { type: 'object' }, validate: undefined };
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new TypeError(
      `${what}: a schema must be a Standard Schema (zod 4, valibot) or an object`,
    );
  if (isStandard(schema)) return compileStandard(schema, io, what);
  const values = Object.values(schema);
  const standard = values.filter(isStandard).length;
  if (standard === 0) return { json: schema, validate: undefined };
  if (standard < values.length)
    throw new TypeError(
      `${what}: the schema mixes schemas and plain values; pass z.object({ ... }) or a JSON Schema`,
    );
  return compileShape(schema as SchemaShape, io, what);
}

/**
 * `compileSchema` for a schema that must describe a JSON object: MCP requires `type: "object"` of
 * a tool's `inputSchema` and `outputSchema` (arguments and structured content are objects), and a
 * prompt's arguments are the properties of one. Anything else (`z.string()`, a union exported as
 * `anyOf`, a JSON Schema without `type`) is refused here, naming `option` and what was given.
 */
export function compileObjectSchema(
  schema: Schema | SchemaShape | JsonSchema | undefined,
  io: 'input' | 'output',
  what: string,
  option: string,
): CompiledSchema {
  const compiled = compileSchema(schema, io, what);
  const { type } = compiled.json;
  if (type === 'object') return compiled;
  const keys = Object.keys(compiled.json);
  const got =
    type !== undefined
      ? `type ${JSON.stringify(type)}`
      : keys.length === 0
        ? 'an empty schema'
        : `a schema without "type" (${keys.join(', ')})`;
  throw new TypeError(`${what}: ${option} must be an object schema (type "object"), got ${got}`);
}

function compileStandard(
  schema: StandardSchemaV1,
  io: 'input' | 'output',
  what: string,
): { json: JsonSchema; validate: (value: unknown) => unknown } {
  const props = schema['~standard'] as Partial<StandardJSONSchemaV1.Props> & StandardSchemaV1.Props;
  if (!props.jsonSchema) throw new TypeError(`${what}: ${noJsonSchema(props.vendor)}`);
  const json = { ...props.jsonSchema[io]({ target: 'draft-2020-12' }) };
  // 2020-12 is the default dialect in MCP; the explicit $schema only adds bytes to every list.
  if (json.$schema === 'https://json-schema.org/draft/2020-12/schema') delete json.$schema;
  return { json, validate: props.validate };
}

/** Why a Standard Schema without a JSON Schema export cannot be used, and what to use instead. */
function noJsonSchema(vendor: string): string {
  switch (vendor) {
    case 'zod':
      return 'zod 4 (or any Standard JSON Schema) is required; this schema comes from zod 3 (or zod/v3). Install zod 4 and import from "zod".';
    case 'valibot':
      return 'the valibot schema cannot export JSON Schema: wrap it with toStandardJsonSchema() from @valibot/to-json-schema.';
    default:
      return `the ${vendor} schema cannot export JSON Schema: use a schema that implements Standard JSON Schema (zod 4, valibot with @valibot/to-json-schema) or a plain JSON Schema.`;
  }
}

/** `{ a: z.string(), b: z.number().optional() }` as the object schema it stands for. */
function compileShape(shape: SchemaShape, io: 'input' | 'output', what: string): CompiledSchema {
  const properties: JsonSchema = {};
  const required: string[] = [];
  const fields: Array<[string, CompiledSchema['validate']]> = [];
  for (const [key, schema] of Object.entries(shape)) {
    const compiled = compileStandard(schema, io, `${what}, property ${key}`);
    properties[key] = compiled.json;
    fields.push([key, compiled.validate]);
    // A property whose schema accepts `undefined` (optional, default) is not required.
    const empty = compiled.validate(undefined) as
      | StandardSchemaV1.Result<unknown>
      | Promise<unknown>;
    if (empty instanceof Promise || empty.issues) required.push(key);
  }
  const json: JsonSchema = { type: 'object', properties };
  if (required.length > 0) json.required = required;
  return { json, validate: (value) => validateShape(fields, value) };
}

function validateShape(
  fields: ReadonlyArray<[string, CompiledSchema['validate']]>,
  value: unknown,
): StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { issues: [{ message: 'Expected an object' }] };
  const input = value as Record<string, unknown>;
  const results = fields.map(([key, validate]) => validate?.(input[key]) as ShapeResult);
  if (results.some((result) => result instanceof Promise))
    return Promise.all(results).then((settled) => mergeShape(fields, settled));
  return mergeShape(fields, results as StandardSchemaV1.Result<unknown>[]);
}

type ShapeResult = StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>>;

function mergeShape(
  fields: ReadonlyArray<[string, CompiledSchema['validate']]>,
  results: ReadonlyArray<StandardSchemaV1.Result<unknown>>,
): StandardSchemaV1.Result<unknown> {
  const output: Record<string, unknown> = {};
  const issues: StandardSchemaV1.Issue[] = [];
  results.forEach((result, i) => {
    const key = (fields[i] as [string, unknown])[0];
    if (result.issues)
      for (const issue of result.issues)
        issues.push({ message: issue.message, path: [key, ...(issue.path ?? [])] });
    else {
      const value = (result as StandardSchemaV1.SuccessResult<unknown>).value;
      if (value !== undefined) output[key] = value;
    }
  });
  return issues.length > 0 ? { issues } : { value: output };
}

/**
 * Runs a compiled validator on the arguments of a tool or prompt; throws -32602 with the
 * validation messages on failure. Synchronous validators (zod, valibot) answer without a promise,
 * so none is made for them.
 */
export function parseWith(
  schema: CompiledSchema,
  value: unknown,
  kind: 'tool' | 'prompt',
  name: string,
): unknown | Promise<unknown> {
  if (!schema.validate) return value;
  const result = schema.validate(value) as
    | StandardSchemaV1.Result<unknown>
    | Promise<StandardSchemaV1.Result<unknown>>;
  if (result instanceof Promise) return result.then((settled) => parsed(settled, kind, name));
  return parsed(result, kind, name);
}

function parsed(
  result: StandardSchemaV1.Result<unknown>,
  kind: 'tool' | 'prompt',
  name: string,
): unknown {
  if (result.issues)
    throw invalidParams(`Invalid arguments for ${kind} ${name}: ${formatIssues(result.issues)}`, {
      issues: plainIssues(result.issues),
    });
  return (result as StandardSchemaV1.SuccessResult<unknown>).value;
}

export function formatIssues(issues: ReadonlyArray<StandardSchemaV1.Issue>): string {
  return issues
    .map((issue) => (issue.path?.length ? `${pathOf(issue)}: ${issue.message}` : issue.message))
    .join('; ');
}

function pathOf(issue: StandardSchemaV1.Issue): string {
  return (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.');
}

function plainIssues(
  issues: ReadonlyArray<StandardSchemaV1.Issue>,
): Array<{ path: string; message: string }> {
  return issues.map((issue) => ({ path: pathOf(issue), message: issue.message }));
}
