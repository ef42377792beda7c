/**
 * Fixture prompts: plain, with arguments (and their completion), with an embedded resource, with
 * an image, and one that asks for context before it answers (MRTR).
 */
import type { McpServer } from '@edge-mcp/core';
import * as z from 'zod';
import { PNG, text } from './fixture-parts.ts';

export function prompts(s: McpServer): void {
  s.prompt(
    'test_simple_prompt',
    { description: 'A simple prompt' },
    () => 'This is a simple prompt for testing.',
  );
  s.prompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with two arguments',
      argsSchema: z.object({
        arg1: z.string().describe('First argument'),
        arg2: z.string().describe('Second argument'),
      }),
      complete: { arg1: (value) => ['test1', 'test2', 'other'].filter((v) => v.startsWith(value)) },
    },
    ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
  );
  s.prompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'A prompt with an embedded resource',
      argsSchema: z.object({ resourceUri: z.string().describe('Resource to embed') }),
    },
    ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: resourceUri,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        { role: 'user', content: text('Please process the embedded resource above.') },
      ],
    }),
  );
  s.prompt('test_prompt_with_image', { description: 'A prompt with an image' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      { role: 'user', content: text('Please analyze the image above.') },
    ],
  }));
  s.prompt(
    'test_input_required_result_prompt',
    { description: 'MRTR: a prompt that asks for context' },
    async (_args, ctx) => {
      const answer = await ctx.elicit(
        {
          message: 'What context should the prompt use?',
          requestedSchema: { type: 'object', properties: { context: { type: 'string' } } },
        },
        'user_context',
      );
      return `Use this context: ${JSON.stringify(answer.content)}`;
    },
  );
}
