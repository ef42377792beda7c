import { sseMessages } from './sse-parser.ts';

export interface RpcAnswer {
  status: number;
  contentType: string | null;
  /** The final JSON-RPC message (`{}` for an empty body). */
  message: Record<string, any>;
  /** The messages that preceded it on an SSE answer. */
  notifications: Array<Record<string, any>>;
}

/** Reads a JSON or SSE answer to its end. */
export async function readAnswer(response: Response): Promise<RpcAnswer> {
  const contentType = response.headers.get('content-type');
  const text = await response.text();
  if (contentType?.startsWith('text/event-stream')) {
    const messages = sseMessages(text);
    return {
      status: response.status,
      contentType,
      message: messages.at(-1) ?? {},
      notifications: messages.slice(0, -1),
    };
  }
  return {
    status: response.status,
    contentType,
    message: text ? JSON.parse(text) : {},
    notifications: [],
  };
}
