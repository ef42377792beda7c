import type { JsonObject } from '../protocol/jsonrpc.ts';
import { callTool } from './call-tool.ts';
import type { RequestContext } from './context.ts';
import { complete, findTool, getPrompt } from './features.ts';
import type { McpServer } from './server.ts';

/** A method both eras serve alike (no wire fields of either era around its result). */
type FeatureMethod = (
  core: { readonly server: McpServer },
  ctx: RequestContext,
  params: JsonObject,
) => JsonObject | Promise<JsonObject>;

/** The entries both eras' method tables share; each era adds its own methods around them. */
export const FEATURE_METHODS: Readonly<Record<string, FeatureMethod>> = {
  'tools/call': (core, ctx, params) => callTool(findTool(core.server, params), params, ctx),
  'prompts/get': (core, ctx, params) => getPrompt(core.server, params, ctx),
  'completion/complete': (core, _ctx, params) => complete(core.server, params),
};
