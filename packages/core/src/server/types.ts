import type { JsonObject } from '../protocol/jsonrpc.ts';

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  [key: string]: unknown;
}

export type ClientCapabilities = {
  elicitation?: { form?: JsonObject; url?: JsonObject } & JsonObject;
  sampling?: { tools?: JsonObject } & JsonObject;
  roots?: { listChanged?: boolean };
  extensions?: JsonObject;
} & JsonObject;

export type ContentBlock =
  | { type: 'text'; text: string; annotations?: JsonObject; _meta?: JsonObject }
  | { type: 'image'; data: string; mimeType: string; annotations?: JsonObject; _meta?: JsonObject }
  | { type: 'audio'; data: string; mimeType: string; annotations?: JsonObject; _meta?: JsonObject }
  | { type: 'resource'; resource: ResourceContents; annotations?: JsonObject; _meta?: JsonObject }
  | ({ type: 'resource_link'; uri: string; name: string } & JsonObject);

export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: JsonObject }
  | { uri: string; mimeType?: string; blob: string; _meta?: JsonObject };

/** What a tool handler returns: a string (one text block) or a full result. */
export type ToolResult =
  | string
  | {
      content?: ContentBlock[];
      /** Must match the tool's output schema when it has one; mirrored into a text block if `content` is absent. */
      structuredContent?: unknown;
      isError?: boolean;
      _meta?: JsonObject;
    };

/** What a resource reader returns: text, bytes, or the full result. */
export type ResourceResult =
  | string
  | Uint8Array
  | { contents: ResourceContents[]; _meta?: JsonObject };

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

/** What a prompt handler returns: a string (one user message) or the full result. */
export type PromptResult =
  | string
  | { description?: string; messages: PromptMessage[]; _meta?: JsonObject };

/** Completion values for one argument; at most 100 are sent. */
export type CompleteFn = (
  value: string,
  context: { arguments: Record<string, string> },
) => string[] | Promise<string[]>;

/** A server→client request a handler needs answered (elicitation, sampling, roots). */
export interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  params?: JsonObject;
}
