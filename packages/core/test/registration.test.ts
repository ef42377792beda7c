import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import { z as z3 } from 'zod/v3';
import { createMcpHandler, McpServer } from '../src/index.ts';
import { call } from './helpers.ts';

// Mistakes a server author writing plain JavaScript makes, with no compiler to catch them: each
// gets an error that says what to write instead of a tool that silently misbehaves.
describe('registration mistakes', () => {
  test('a raw shape ({ text: z.string() }, the SDK v1 habit) is the object schema it stands for', async () => {
    const s = new McpServer({ name: 'shape', version: '1' });
    s.tool(
      'greet',
      { inputSchema: { name: z.string(), times: z.number().optional() } },
      ({ name, times }) => `${name} x${times ?? 1}`,
    );
    const handler = createMcpHandler(s);
    const listed = (await call(handler, 'tools/list')).message.result.tools[0];
    expect(listed.inputSchema).toEqual({
      type: 'object',
      properties: { name: { type: 'string' }, times: { type: 'number' } },
      required: ['name'],
    });
    const ok = await call(handler, 'tools/call', { name: 'greet', arguments: { name: 'ada' } });
    expect(ok.message.result.content).toEqual([{ type: 'text', text: 'ada x1' }]);
    const bad = await call(handler, 'tools/call', { name: 'greet', arguments: { times: 'x' } });
    expect(bad.message.error.code).toBe(-32602);
    expect(bad.message.error.message).toMatch(/name/);
    expect(bad.message.error.data.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      'name',
      'times',
    ]);
  });

  test('a zod 3 schema is refused: zod 4 (or any Standard JSON Schema) is required', () => {
    const s = new McpServer({ name: 'z3', version: '1' });
    expect(() =>
      s.tool('old', { inputSchema: z3.object({ a: z3.string() }) as never }, () => ''),
    ).toThrow(/zod 4 \(or any Standard JSON Schema\) is required/);
    expect(() => s.tool('old2', { inputSchema: { a: z3.string() } as never }, () => '')).toThrow(
      /property a: zod 4/,
    );
  });

  test('options under their old or SDK-less names are refused with the name to use', () => {
    const s = new McpServer({ name: 'names', version: '1' });
    expect(() => s.tool('t', { input: z.object({}) } as never, () => '')).toThrow(
      /named inputSchema, not input/,
    );
    expect(() => s.tool('u', { output: z.object({}) } as never, () => '')).toThrow(
      /named outputSchema, not output/,
    );
    expect(() => s.prompt('p', { arguments: z.object({}) } as never, () => '')).toThrow(
      /named argsSchema, not arguments/,
    );
    expect(() => s.tool('v', {}, undefined as never)).toThrow(/handler must be a function/);
  });

  test.each([
    ['a number', () => 42, /returned a number/],
    ['nothing', () => undefined, /returned nothing/],
    ['plain data', () => ({ sum: 3 }), /returned an object without content or structuredContent/],
    ['an async number', async () => 7, /returned a number/],
  ])('a tool that returns %s gets a clear error, not empty content', async (_, fn, message) => {
    const s = new McpServer({ name: 'results', version: '1' });
    s.tool('t', {}, fn as never);
    const { message: answer } = await call(createMcpHandler(s), 'tools/call', { name: 't' });
    expect(answer.result).toBeUndefined();
    expect(answer.error.code).toBe(-32603);
    expect(answer.error.message).toMatch(message);
    expect(answer.error.message).toMatch(/return a string, \{ content/);
  });
});
