import { McpError } from '../errors.ts';
import { ErrorCode, HEADER, LOG_LEVELS, META, MODERN_VERSION } from '../protocol/constants.ts';
import {
  describeValue,
  isObject,
  type JsonObject,
  type JsonRpcRequest,
} from '../protocol/jsonrpc.ts';
import type { ToolEntry } from '../server/registry.ts';

type HeaderReader = { get(name: string): string | null };

/**
 * Checks of a 2026-07-28 request before dispatch, in the order the spec and the conformance
 * suite expect, each failure HTTP 400: `_meta` protocol version missing (-32602, what a modern
 * client that forgot `_meta` gets), version header absent or different (-32020), version not
 * served (-32022), client capabilities missing or log level unknown (-32602).
 */
export function validateModernMeta(
  headers: HeaderReader,
  meta: JsonObject,
  supported: readonly string[],
): void {
  const version = meta[META.protocolVersion];
  if (typeof version !== 'string') throw badMeta(`_meta["${META.protocolVersion}"] is required`);
  const header = headers.get(HEADER.protocolVersion)?.trim();
  if (header === undefined) throw mismatch('The MCP-Protocol-Version header is required');
  if (header !== version)
    throw mismatch(
      `MCP-Protocol-Version "${header}" does not match _meta protocolVersion ${describeValue(version)}`,
    );
  if (version !== MODERN_VERSION) {
    throw new McpError(
      ErrorCode.UnsupportedProtocolVersion,
      `Unsupported protocol version: ${describeValue(version)}`,
      {
        data: { supported, requested: version },
        status: 400,
      },
    );
  }
  if (!isObject(meta[META.clientCapabilities]))
    throw badMeta(`_meta["${META.clientCapabilities}"] is required`);
  const level = meta[META.logLevel];
  if (level !== undefined && !LOG_LEVELS.includes(level as never))
    throw badMeta(`Unknown log level: ${describeValue(level)}`);
}

/**
 * The methods that name a target, and the param that names it: it goes in `Mcp-Name`, and these
 * are the methods that may answer with an input-required result.
 */
export const TARGET_PARAM: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/** The methods that name a target in `Mcp-Name`, and the param it mirrors. */
const NAME_PARAM: Readonly<Record<string, string>> = {
  ...TARGET_PARAM,
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** `Mcp-Method`, `Mcp-Name`: present and equal to the body. */
export function validateMethodHeaders(headers: HeaderReader, message: JsonRpcRequest): void {
  const method = headerValue(headers, HEADER.method);
  if (method === undefined) throw mismatch('The Mcp-Method header is required');
  if (method !== message.method)
    throw mismatch(`Mcp-Method "${method}" does not match method "${message.method}"`);
  const key = NAME_PARAM[message.method];
  if (key === undefined) return;
  const expected = message.params?.[key];
  const name = headerValue(headers, HEADER.name);
  if (name === undefined) throw mismatch('The Mcp-Name header is required');
  if (name !== expected) throw mismatch(`Mcp-Name "${name}" does not match params.${key}`);
}

/** `Mcp-Param-*` headers of a tool with `x-mcp-header` arguments. */
export function validateParamHeaders(headers: HeaderReader, tool: ToolEntry, args: unknown): void {
  const values = isObject(args) ? args : {};
  for (const param of tool.paramHeaders) {
    const value = values[param.property];
    const header = headerValue(headers, param.header);
    if (value === undefined || value === null) {
      if (header !== undefined)
        throw mismatch(`${param.header} is set but ${param.property} is absent`);
      continue;
    }
    if (header === undefined) throw mismatch(`The ${param.header} header is required`);
    const same =
      param.type === 'integer'
        ? header !== '' && Number(header) === value
        : param.type === 'boolean'
          ? // Typed first: String() of a client's deeply nested array recurses until the stack overflows.
            typeof value === 'boolean' && header === String(value)
          : header === value;
    if (!same) throw mismatch(`${param.header} does not match argument ${param.property}`);
  }
}

// Strict Base64: whole quartets, padding only at the end (a sloppy value is a mismatch, not a guess).
const SENTINEL = /^=\?base64\?((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)\?=$/;
const SAFE = /^[\x20-\x7e\t]*$/;

/** Rejects malformed UTF-8 in a Base64-encoded header value; one decoder serves them all. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A request-metadata header, trimmed and Base64-sentinel decoded; rejects invalid characters. */
function headerValue(headers: HeaderReader, name: string): string | undefined {
  const raw = headers.get(name);
  if (raw === null) return undefined;
  const value = raw.trim();
  // Only a value that starts with "=?" can be the sentinel: the others skip its pattern.
  const encoded = value.charCodeAt(0) === 61 ? SENTINEL.exec(value) : null;
  if (encoded) {
    try {
      const binary = atob(encoded[1] ?? '');
      return STRICT_UTF8.decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
    } catch {
      throw mismatch(`${name} has an invalid Base64 value`);
    }
  }
  if (!SAFE.test(value)) throw mismatch(`${name} has invalid characters`);
  return value;
}

function mismatch(message: string): McpError {
  return new McpError(ErrorCode.HeaderMismatch, message, { status: 400 });
}

function badMeta(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message, { status: 400 });
}
