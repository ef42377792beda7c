import { McpServer } from '@edge-mcp/core';
import * as z from 'zod';
import { inputTools, schemaTools } from './fixture-input-tools.ts';
import { nameSchema, PNG, pause, text, WAV } from './fixture-parts.ts';
import { taskTools } from './fixture-task-tools.ts';

/**
 * The server the official conformance suite drives: the tools, resources and prompts its
 * scenarios name, with the payloads they check. Written for edge-mcp; names follow the suite.
 */

export function createFixtureServer(): McpServer {
  const s = new McpServer({ name: 'edge-mcp-conformance-fixture', version: '0.1.0' });
  contentTools(s);
  behaviourTools(s);
  inputTools(s);
  schemaTools(s);
  taskTools(s);
  resources(s);
  prompts(s);
  return s;
}

function contentTools(s: McpServer): void {
  // First in the list on purpose: header-validation scenarios call the first tool with no arguments.
  s.tool(
    'test_simple_text',
    { description: 'Returns simple text content' },
    () => 'This is a simple text response for testing.',
  );
  s.tool('test_image_content', { description: 'Returns image content' }, () => ({
    content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
  }));
  s.tool('test_audio_content', { description: 'Returns audio content' }, () => ({
    content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }],
  }));
  s.tool('test_embedded_resource', { description: 'Returns an embedded resource' }, () => ({
    content: [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ],
  }));
  s.tool(
    'test_multiple_content_types',
    { description: 'Returns text, image and resource content' },
    () => ({
      content: [
        text('Multiple content types test:'),
        { type: 'image', data: PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: '{"test":"data","value":123}',
          },
        },
      ],
    }),
  );
  s.tool('test_error_handling', { description: 'Always fails with a tool error' }, () => {
    throw new Error('This tool intentionally returns an error for testing');
  });
}

function behaviourTools(s: McpServer): void {
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
  s.tool(
    'test_elicitation',
    {
      description: 'Asks the user for information',
      inputSchema: z.object({ message: z.string() }),
    },
    async ({ message }, ctx) => {
      const answer = await ctx.elicit({
        message,
        requestedSchema: {
          type: 'object',
          properties: { username: { type: 'string' }, email: { type: 'string' } },
          required: ['username', 'email'],
        },
      });
      return `User response: ${JSON.stringify(answer)}`;
    },
  );
  s.tool(
    'test_elicitation_sep1034_defaults',
    { description: 'Elicitation with defaults' },
    async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: 'Please review your information',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', default: 'John Doe' },
            age: { type: 'integer', default: 30 },
            score: { type: 'number', default: 95.5 },
            status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', default: true },
          },
        },
      });
      return `Elicitation result: ${JSON.stringify(answer)}`;
    },
  );
  s.tool(
    'test_elicitation_sep1330_enums',
    { description: 'Elicitation with every enum shape' },
    async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: 'Pick some options',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: {
              type: 'string',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              minItems: 1,
              maxItems: 3,
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: {
              type: 'array',
              items: {
                anyOf: [
                  { const: 'value1', title: 'First' },
                  { const: 'value2', title: 'Second' },
                  { const: 'value3', title: 'Third' },
                ],
              },
            },
          },
        },
      });
      return `Elicitation result: ${JSON.stringify(answer)}`;
    },
  );
}

function resources(s: McpServer): void {
  s.resource(
    'static-text',
    'test://static-text',
    { description: 'Static text', mimeType: 'text/plain' },
    () => 'This is the content of the static text resource.',
  );
  s.resource(
    'static-binary',
    'test://static-binary',
    { description: 'Static binary', mimeType: 'image/png' },
    () => Uint8Array.from(atob(PNG), (c) => c.charCodeAt(0)),
  );
  s.resource(
    'watched-resource',
    'test://watched-resource',
    { description: 'A resource to subscribe to', mimeType: 'text/plain' },
    () => 'Watched resource content',
  );
  s.resource(
    'example-resource',
    'test://example-resource',
    { description: 'An example resource', mimeType: 'text/plain' },
    () => 'Example resource content',
  );
  s.resourceTemplate(
    'template-data',
    'test://template/{id}/data',
    { description: 'Data by id', mimeType: 'application/json' },
    (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
  );
}

function prompts(s: McpServer): void {
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
