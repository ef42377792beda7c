/**
 * The floor of any server whose tools are described with zod: the bare echo answer, plus what
 * such a server cannot skip: loading zod, building the three tools' schemas, exporting their
 * JSON Schemas (which `tools/list` advertises) and validating the call's arguments. The start-up
 * bench runs it next to the bare handler to show how much of a zod server's start-up is zod's.
 */
import * as z from 'zod';
import { bareResult } from './bare-result.ts';

const ECHO = z.object({ text: z.string() });
const SCHEMAS = [ECHO, z.object({ a: z.number(), b: z.number() }), z.object({ ms: z.number() })];
/** Exported once at start-up, as MCP libraries (ours, the SDKs) do when a tool is defined. */
export const JSON_SCHEMAS = SCHEMAS.map((schema) => z.toJSONSchema(schema, { io: 'input' }));

/** The bare echo answer, after zod validated the arguments. */
export function bareZodResult(body: string): string {
  const message = JSON.parse(body) as { params?: { arguments?: unknown } };
  ECHO.parse(message.params?.arguments);
  return bareResult(body);
}

/** The same as a Web handler, for `Deno.serve` and `Bun.serve`. */
export async function bareZodFetch(request: Request): Promise<Response> {
  return new Response(bareZodResult(await request.text()), {
    headers: { 'content-type': 'application/json' },
  });
}
