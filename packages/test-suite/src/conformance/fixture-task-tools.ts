import { McpError, type McpServer } from '@edge-mcp/core';
import * as z from 'zod';
import { nameSchema, pause, text } from './fixture-parts.ts';

/**
 * Fixture tools for the tasks extension (`io.modelcontextprotocol/tasks`, the suite's `tasks-*`
 * scenarios): names, arguments and behaviour as the scenarios' "required server fixtures" list
 * them. `taskSupport` decides whether a call may become a task: `optional` ones do when the
 * request declares the extension and run synchronously otherwise; `required` ones refuse a
 * request that does not (-32021). Once a task, `ctx.signal` aborts on `tasks/cancel`.
 */
export function taskTools(s: McpServer): void {
  s.tool(
    'greet',
    {
      description: 'Greets by name, synchronously (never a task)',
      inputSchema: z.object({ name: z.string() }),
      taskSupport: 'forbidden',
    },
    ({ name }) => `Hello, ${name}!`,
  );
  s.tool(
    'slow_compute',
    {
      description: 'Sleeps for `seconds` (a task when the client declares the extension)',
      inputSchema: z.object({ seconds: z.number().min(0), label: z.string().optional() }),
      taskSupport: 'optional',
    },
    async ({ seconds, label }, ctx) => {
      // Rejects with the abort reason on tasks/cancel, so the task ends cancelled, not completed.
      await pause(seconds * 1000, ctx.signal);
      return `Computed ${label ?? 'result'} after ${seconds}s`;
    },
  );
  s.tool(
    'failing_job',
    { description: 'After about a second, a tool execution error', taskSupport: 'required' },
    async (_args, ctx) => {
      await pause(1000, ctx.signal);
      return { content: [text('failing_job failed, as it always does')], isError: true };
    },
  );
  s.tool(
    'protocol_error_job',
    { description: 'Fails with a protocol (JSON-RPC) error', taskSupport: 'optional' },
    () => {
      throw new McpError(-32603, 'protocol_error_job always fails with a protocol error');
    },
  );
  s.tool(
    'confirm_delete',
    {
      description: 'Asks for confirmation (one elicitation inside the task), then "deletes"',
      inputSchema: z.object({ filename: z.string() }),
      taskSupport: 'optional',
    },
    async ({ filename }, ctx) => {
      const answer = await ctx.elicit(
        {
          message: `Delete ${filename}?`,
          requestedSchema: {
            type: 'object',
            properties: { confirm: { type: 'boolean' } },
            required: ['confirm'],
          },
        },
        'confirm',
      );
      const confirmed =
        answer.action === 'accept' && (answer.content as { confirm?: boolean }).confirm === true;
      return confirmed ? `Deleted ${filename}` : `Kept ${filename}`;
    },
  );
  s.tool(
    'multi_input',
    {
      description: 'Asks two questions at once (two parallel elicitations)',
      taskSupport: 'optional',
    },
    async (_args, ctx) => {
      const ask = (message: string) => ({
        method: 'elicitation/create' as const,
        params: { message, requestedSchema: nameSchema },
      });
      const answers = await ctx.input({
        first: ask('First name?'),
        second: ask('Second name?'),
      });
      return `Answers: ${JSON.stringify(answers)}`;
    },
  );
  s.tool(
    'test_tool_with_task',
    {
      description: 'Asks for a name through input-required rounds, then becomes a task',
      taskSupport: 'required',
      taskStart: 'manual',
    },
    async (_args, ctx) => {
      const answer = await ctx.elicit(
        { message: 'What is your name?', requestedSchema: nameSchema },
        'user_name',
      );
      await ctx.detach();
      return `Hello, ${(answer.content as { name?: string } | undefined)?.name ?? 'stranger'}!`;
    },
  );
}
