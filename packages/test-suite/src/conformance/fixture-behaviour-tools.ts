/**
 * Fixture tools that exercise what a call can do besides answer: report progress, log, ask the
 * client to sample or for input (MRTR), and announce list changes. Elicitation with its richer
 * schemas lives in fixture-elicitation-tools.ts.
 */
import type { McpServer } from '@edge-mcp/core';
import * as z from 'zod';
import { nameSchema, pause, text } from './fixture-parts.ts';

export function behaviourTools(s: McpServer): void {
  s.tool(
    'test_tool_with_progress',
    { description: 'Reports progress 0, 50, 100' },
    async (_args, ctx) => {
      for (const progress of [0, 50, 100]) {
        ctx.progress(progress, 100, `step ${progress}`);
        if (progress < 100) await pause(50, ctx.signal);
      }
      return 'Progress complete';
    },
  );
  s.tool(
    'test_tool_with_logging',
    { description: 'Sends three log messages' },
    async (_args, ctx) => {
      for (const message of [
        'Tool execution started',
        'Tool processing data',
        'Tool execution completed',
      ]) {
        ctx.log('info', message);
        await pause(50, ctx.signal);
      }
      return 'Logging complete';
    },
  );
  s.tool(
    'test_logging_tool',
    { description: 'Logs at info (only sent when the request asked for logs)' },
    (_args, ctx) => {
      ctx.log('info', 'a log message');
      return 'logged';
    },
  );
  s.tool(
    'test_missing_capability',
    { description: 'Needs the sampling capability' },
    async (_args, ctx) => {
      const answer = await ctx.sample({
        messages: [{ role: 'user', content: text('hi') }],
        maxTokens: 10,
      });
      return JSON.stringify(answer);
    },
  );
  s.tool(
    'test_streaming_elicitation',
    { description: 'Asks for input without sending requests on the stream' },
    async (_args, ctx) => {
      const answer = await ctx.elicit(
        { message: 'Your name?', requestedSchema: nameSchema },
        'user_name',
      );
      return `Hello, ${(answer.content as { name: string }).name}`;
    },
  );
  s.tool(
    'test_trigger_tool_change',
    { description: 'Announces a tools/list change to listeners' },
    () => {
      s.notifyListChanged('tools');
      return 'tools list_changed sent';
    },
  );
  s.tool(
    'test_trigger_prompt_change',
    { description: 'Announces a prompts/list change to listeners' },
    () => {
      s.notifyListChanged('prompts');
      return 'prompts list_changed sent';
    },
  );
  s.tool(
    'test_sampling',
    { description: 'Asks the client to sample', inputSchema: z.object({ prompt: z.string() }) },
    async ({ prompt }, ctx) => {
      const answer = await ctx.sample({
        messages: [{ role: 'user', content: text(prompt) }],
        maxTokens: 100,
      });
      return `LLM response: ${(answer.content as { text?: string }).text ?? ''}`;
    },
  );
}
