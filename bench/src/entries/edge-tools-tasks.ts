/**
 * The task tool of the tasks targets: `task-echo {text}`, the bench's echo with
 * `taskSupport: 'optional'`, so a 2025-11-25 `tools/call` with `params.task` runs it as a task.
 * A separate tool (not a flag on `echo`) keeps the other targets' servers as they are.
 */
import type { McpServer } from '@edge-mcp/core';
import * as z from 'zod';

/** Also named in src/lib/task-load.ts, which drives it. */
export const TASK_TOOL = 'task-echo';

export function addTaskTool(server: McpServer): void {
  server.tool(
    TASK_TOOL,
    { inputSchema: z.object({ text: z.string() }), taskSupport: 'optional' },
    ({ text }) => text,
  );
}
