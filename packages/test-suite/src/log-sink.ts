/** Where the request/session log goes; in memory by default, a Durable Object on workerd. */
export interface LogSink {
  push(line: Record<string, unknown>): void;
  read(): Promise<Array<Record<string, unknown>>>;
}

export function memorySink(): LogSink {
  const lines: Array<Record<string, unknown>> = [];
  return { push: (line) => lines.push(line), read: async () => lines };
}
