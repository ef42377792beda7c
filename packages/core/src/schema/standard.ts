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

/** Inferred output type of a schema, `Record<string, unknown>` when none is given. */
export type Infer<S> = S extends StandardSchemaV1<unknown, infer O> ? O : Record<string, unknown>;

/** A compiled schema: the JSON Schema computed once at definition time, and the validator. */
export interface CompiledSchema {
  readonly json: JsonSchema;
  readonly validate: ((value: unknown) => unknown | Promise<unknown>) | undefined;
}

function isStandard(value: unknown): value is StandardSchemaV1 {
  return typeof value === 'object' && value !== null && '~standard' in value;
}

/**
 * Compiles a schema given as a Standard Schema (zod, wrapped valibot) or as a plain JSON Schema
 * object (advertised as is, not validated). The JSON Schema export runs once, here.
 */
export function compileSchema(
  schema: Schema | JsonSchema | undefined,
  io: 'input' | 'output',
  what: string,
): CompiledSchema {
  if (schema === undefined) return { json: { type: 'object' }, validate: undefined };
  if (!isStandard(schema)) return { json: schema, validate: undefined };
  const props = schema['~standard'] as Partial<StandardJSONSchemaV1.Props> & StandardSchemaV1.Props;
  if (!props.jsonSchema) {
    throw new TypeError(
      `${what}: the ${props.vendor} schema cannot export JSON Schema. For valibot, wrap it with toStandardJsonSchema() from @valibot/to-json-schema.`,
    );
  }
  const json = { ...props.jsonSchema[io]({ target: 'draft-2020-12' }) };
  // 2020-12 is the default dialect in MCP; the explicit $schema only adds bytes to every list.
  if (json.$schema === 'https://json-schema.org/draft/2020-12/schema') delete json.$schema;
  const validate = props.validate;
  return { json, validate };
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
  return result.value;
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
