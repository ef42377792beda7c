import type { McpServer, RequestContext } from '@edge-mcp/core';
import { nameSchema, pause, text } from './fixture-parts.ts';

/** Fixture tools for input-required results (MRTR) and for schema/header scenarios. */
export function inputTools(s: McpServer): void {
  const ask = (message: string, schema: object = nameSchema) => ({
    message,
    requestedSchema: schema,
  });
  s.tool(
    'test_input_required_result_elicitation',
    { description: 'MRTR: asks for a name' },
    async (_args, ctx) => {
      const answer = await ctx.elicit(ask('What is your name?'), 'user_name');
      return `Hello, ${(answer.content as { name?: string } | undefined)?.name ?? 'stranger'}!`;
    },
  );
  s.tool(
    'test_input_required_result_sampling',
    { description: 'MRTR: asks the client to sample' },
    async (_args, ctx) => {
      const answer = await ctx.sample(
        {
          messages: [{ role: 'user', content: text('What is the capital of France?') }],
          maxTokens: 100,
        },
        'sample_request',
      );
      return `Sampled: ${JSON.stringify(answer.content)}`;
    },
  );
  s.tool(
    'test_input_required_result_list_roots',
    { description: 'MRTR: asks for roots' },
    async (_args, ctx) => {
      const answer = await ctx.listRoots('roots_request');
      return `Roots: ${JSON.stringify(answer.roots)}`;
    },
  );
  s.tool(
    'test_input_required_result_request_state',
    { description: 'MRTR: confirmation carried in requestState' },
    async (_args, ctx) => {
      const answer = await ctx.elicit(
        ask('Please confirm', { type: 'object', properties: { ok: { type: 'boolean' } } }),
        'confirm',
      );
      return `state-ok: ${JSON.stringify(answer.content)}`;
    },
  );
  s.tool(
    'test_input_required_result_tampered_state',
    { description: 'MRTR: rejects a tampered requestState' },
    async (_args, ctx) => {
      const answer = await ctx.elicit(
        ask('Please confirm', { type: 'object', properties: { ok: { type: 'boolean' } } }),
        'confirm',
      );
      return `confirmed: ${JSON.stringify(answer.content)}`;
    },
  );
  s.tool(
    'test_input_required_result_multiple_inputs',
    { description: 'MRTR: three inputs at once' },
    async (_args, ctx) => {
      const answers = await ctx.input({
        user_name: { method: 'elicitation/create', params: ask('What is your name?') },
        greeting: {
          method: 'sampling/createMessage',
          params: {
            messages: [{ role: 'user', content: text('Generate a greeting') }],
            maxTokens: 50,
          },
        },
        client_roots: { method: 'roots/list' },
      });
      return `All inputs: ${JSON.stringify(answers)}`;
    },
  );
  s.tool(
    'test_input_required_result_multi_round',
    { description: 'MRTR: two rounds of questions' },
    async (_args, ctx) => {
      const first = await ctx.elicit(ask('Step 1: What is your name?'), 'step1');
      const second = await ctx.elicit(
        ask('Step 2: What is your favorite color?', {
          type: 'object',
          properties: { color: { type: 'string' } },
        }),
        'step2',
      );
      return `Done: ${JSON.stringify([first.content, second.content])}`;
    },
  );
  s.tool(
    'test_input_required_result_capabilities',
    { description: 'MRTR: asks only for what the client declared' },
    async (_args, ctx: RequestContext) => {
      const caps = ctx.clientCapabilities;
      if (caps.sampling) {
        await ctx.sample(
          { messages: [{ role: 'user', content: text('Sample request') }], maxTokens: 50 },
          'sample_input',
        );
      }
      if (caps.elicitation) await ctx.elicit(ask('What is your name?'), 'user_name');
      return 'Used only declared capabilities';
    },
  );
}

export function schemaTools(s: McpServer): void {
  s.tool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool whose input schema uses JSON Schema 2020-12 keywords',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: {
            $anchor: 'addressDef',
            type: 'object',
            properties: { street: { type: 'string' }, city: { type: 'string' } },
          },
        },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
          contactMethod: { type: 'string', enum: ['phone', 'email'] },
          phone: { type: 'string' },
          email: { type: 'string' },
        },
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema keyword here, not a thenable.
        then: { required: ['phone'] },
        else: { required: ['email'] },
        additionalProperties: false,
      },
    },
    (args) => `Received: ${JSON.stringify(args)}`,
  );
  s.tool(
    'test_custom_header',
    {
      description: 'Mirrors its region argument into an Mcp-Param-Region header',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
        required: ['region'],
      },
    },
    (args) => `Region: ${String((args as { region?: string }).region)}`,
  );
  s.tool(
    'test_reconnection',
    { description: 'Runs briefly, for stream reconnection tests' },
    async (_args, ctx) => {
      await pause(100, ctx.signal);
      return 'Reconnection test complete';
    },
  );
}
