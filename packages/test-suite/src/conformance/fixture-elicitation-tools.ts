/**
 * Fixture tools that ask the user for input through the client (`elicitation/create`): a plain
 * form, one with defaults (SEP-1034) and one with every enum shape (SEP-1330), each answering with
 * what the client sent back so the scenarios can check it.
 */
import type { McpServer } from '@edge-mcp/core';
import * as z from 'zod';

export function elicitationTools(s: McpServer): void {
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
