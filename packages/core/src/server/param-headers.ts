import type { JsonSchema } from '../schema/standard.ts';

/** A tool argument mirrored into an `Mcp-Param-<name>` request header (2026-07-28, `x-mcp-header`). */
export interface ParamHeader {
  /** Lower-cased full header name, e.g. `mcp-param-region`. */
  readonly header: string;
  readonly property: string;
  readonly type: 'string' | 'integer' | 'boolean';
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Reads `x-mcp-header` annotations from a tool's top-level input properties, checking the
 * constraints the spec puts on them so a bad annotation fails at definition time, not per request.
 */
export function paramHeadersOf(schema: JsonSchema, tool: string): ParamHeader[] {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!properties) return [];
  const found: ParamHeader[] = [];
  const seen = new Set<string>();
  for (const [property, definition] of Object.entries(properties)) {
    const name = definition['x-mcp-header'];
    if (name === undefined) continue;
    if (typeof name !== 'string' || !TOKEN.test(name)) {
      throw new TypeError(
        `tool ${tool}: x-mcp-header on "${property}" must be a non-empty header token`,
      );
    }
    const type = definition.type;
    if (type !== 'string' && type !== 'integer' && type !== 'boolean') {
      throw new TypeError(
        `tool ${tool}: x-mcp-header on "${property}" needs type string, integer or boolean`,
      );
    }
    const header = `mcp-param-${name.toLowerCase()}`;
    if (seen.has(header)) throw new TypeError(`tool ${tool}: duplicate x-mcp-header "${name}"`);
    seen.add(header);
    found.push({ header, property, type });
  }
  return found;
}
