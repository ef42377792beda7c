import { modernRequest, readAnswer } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import { createMcpHandler, McpServer } from '../src/index.ts';
import { call, NESTED, nestedIn } from './helpers.ts';

const ELICIT = { elicitation: { form: {} } };

function server(runs: string[]): McpServer {
  const s = new McpServer({ name: 'mrtr', version: '1.0.0' });
  s.tool('greet', { inputSchema: z.object({ lang: z.string() }) }, async ({ lang }, ctx) => {
    const answer = await ctx.elicit(
      {
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      },
      'name',
    );
    runs.push(`greeted ${lang}`);
    return `hello ${(answer.content as { name: string }).name} (${lang})`;
  });
  s.tool('two-rounds', {}, async (_args, ctx) => {
    const first = await ctx.elicit(
      { message: 'first?', requestedSchema: { type: 'object', properties: {} } },
      'a',
    );
    const second = await ctx.input({
      b: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
      c: { method: 'roots/list' },
    });
    return JSON.stringify({ a: first.action, b: second.b.model, c: second.c.roots });
  });
  return s;
}

describe('input-required results (MRTR)', () => {
  test('elicitation round trip: input_required, then the retry with the answer completes', async () => {
    const runs: string[] = [];
    const handler = createMcpHandler(server(runs), { requestState: { secret: 'test-secret' } });
    const first = await call(
      handler,
      'tools/call',
      { name: 'greet', arguments: { lang: 'en' } },
      { capabilities: ELICIT },
    );
    const result = first.message.result;
    expect(result.resultType).toBe('input_required');
    expect(result.inputRequests.name.method).toBe('elicitation/create');
    expect(typeof result.requestState).toBe('string');
    expect(runs).toEqual([]);
    const retry = await call(
      handler,
      'tools/call',
      {
        name: 'greet',
        arguments: { lang: 'en' },
        requestState: result.requestState,
        inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
      },
      { capabilities: ELICIT },
    );
    expect(retry.message.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'hello Ada (en)' }],
    });
    expect(runs).toEqual(['greeted en']);
  });

  test('requestState: replayable within its lifetime by default; singleUse accepts it once', async () => {
    for (const singleUse of [false, true]) {
      const runs: string[] = [];
      const handler = createMcpHandler(server(runs), {
        requestState: { secret: 'test-secret', singleUse },
      });
      const first = await call(
        handler,
        'tools/call',
        { name: 'greet', arguments: { lang: 'en' } },
        { capabilities: ELICIT },
      );
      const retry = () =>
        call(
          handler,
          'tools/call',
          {
            name: 'greet',
            arguments: { lang: 'en' },
            requestState: first.message.result.requestState,
            inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
          },
          { capabilities: ELICIT },
        );
      expect((await retry()).message.result.resultType).toBe('complete');
      const again = await retry();
      if (singleUse) {
        expect(again.message.error).toMatchObject({ code: -32602 });
        expect(again.message.error.message).toContain('used already');
        expect(runs).toEqual(['greeted en']);
      } else {
        expect(again.message.result.resultType).toBe('complete');
        expect(runs).toEqual(['greeted en', 'greeted en']);
      }
    }
  });

  test('multi-round: answers of earlier rounds travel in the signed state', async () => {
    const handler = createMcpHandler(server([]));
    const caps = { ...ELICIT, sampling: {}, roots: {} };
    const r1 = (await call(handler, 'tools/call', { name: 'two-rounds' }, { capabilities: caps }))
      .message.result;
    expect(Object.keys(r1.inputRequests)).toEqual(['a']);
    const r2 = (
      await call(
        handler,
        'tools/call',
        {
          name: 'two-rounds',
          requestState: r1.requestState,
          inputResponses: { a: { action: 'accept', content: {} } },
        },
        { capabilities: caps },
      )
    ).message.result;
    expect(r2.resultType).toBe('input_required');
    expect(Object.keys(r2.inputRequests).sort()).toEqual(['b', 'c']);
    const r3 = (
      await call(
        handler,
        'tools/call',
        {
          name: 'two-rounds',
          requestState: r2.requestState,
          inputResponses: {
            b: { role: 'assistant', model: 'm1', content: { type: 'text', text: 'x' } },
            c: { roots: [{ uri: 'file:///a' }] },
            extra: { ignored: true },
          },
        },
        { capabilities: caps },
      )
    ).message.result;
    expect(JSON.parse(r3.content[0].text)).toEqual({
      a: 'accept',
      b: 'm1',
      c: [{ uri: 'file:///a' }],
    });
  });

  test('a tampered, foreign or garbage requestState is rejected with -32602', async () => {
    const handler = createMcpHandler(server([]));
    const first = (
      await call(
        handler,
        'tools/call',
        { name: 'greet', arguments: { lang: 'en' } },
        { capabilities: ELICIT },
      )
    ).message.result;
    const [payload, signature] = first.requestState.split('.');
    const forged = JSON.parse(atob(payload.replaceAll('-', '+').replaceAll('_', '/')));
    forged.r = { name: { action: 'accept', content: { name: 'Mallory' } } };
    const tampered = `${btoa(JSON.stringify(forged)).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')}.${signature}`;
    for (const [what, state, args] of [
      ['tampered', tampered, { lang: 'en' }],
      ['other arguments', first.requestState, { lang: 'fr' }],
      ['garbage', 'not-a-state', { lang: 'en' }],
    ] as const) {
      const answer = await call(
        handler,
        'tools/call',
        { name: 'greet', arguments: args, requestState: state },
        { capabilities: ELICIT },
      );
      expect(answer.message.error?.code, what).toBe(-32602);
    }
    // A state signed by another handler (another key) is rejected too.
    const other = createMcpHandler(server([]));
    const answer = await call(
      other,
      'tools/call',
      { name: 'greet', arguments: { lang: 'en' }, requestState: first.requestState },
      { capabilities: ELICIT },
    );
    expect(answer.message.error.code).toBe(-32602);
  });

  test('arguments nested too deep to bind to a state are -32602, both when asking and on the retry', async () => {
    const handler = createMcpHandler(server([]), { requestState: { secret: 'test-secret' } });
    const deepCall = async (depth: number, extra: Record<string, unknown>) => {
      const request = modernRequest(
        'tools/call',
        { name: 'greet', arguments: { lang: 'en', nested: NESTED }, ...extra },
        { capabilities: ELICIT },
      );
      return readAnswer(await handler.fetch(await nestedIn(request, depth)));
    };
    // Within the bound the round trip works with the nested value in the binding.
    const shallow = await deepCall(64, {});
    expect(shallow.message.result.resultType).toBe('input_required');
    const again = await deepCall(64, {
      requestState: shallow.message.result.requestState,
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
    });
    expect(again.message.result.content[0].text).toBe('hello Ada (en)');
    for (const extra of [{}, { requestState: shallow.message.result.requestState }]) {
      const answer = await deepCall(100_000, extra);
      expect(answer.message.error?.code).toBe(-32602);
      expect(answer.message.error.message).toMatch(/nest deeper than/);
    }
  });

  test('asking for a capability the client did not declare is 400 with -32021', async () => {
    const handler = createMcpHandler(server([]));
    const answer = await call(handler, 'tools/call', { name: 'greet', arguments: { lang: 'en' } });
    expect(answer.status).toBe(400);
    expect(answer.message.error.code).toBe(-32021);
    expect(answer.message.error.data.requiredCapabilities).toEqual({ elicitation: { form: {} } });
  });

  test('malformed inputResponses are a JSON-RPC error', async () => {
    const handler = createMcpHandler(server([]));
    const answer = await call(
      handler,
      'tools/call',
      { name: 'greet', arguments: { lang: 'en' }, inputResponses: { name: 'yes' } },
      { capabilities: ELICIT },
    );
    expect(answer.message.error.code).toBe(-32602);
  });
});
