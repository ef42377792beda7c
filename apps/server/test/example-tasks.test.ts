/**
 * The example's two task tools (issue 27 item 6), as a 2026-07-28 client with the tasks
 * extension runs them: `long_job` (may run again: `idempotentHint`) reports progress and
 * completes; `ask_job` waits in `input_required` for its elicitation, is answered with
 * `tasks/update`, and completes with what it was told. The same server runs on every runtime
 * (the shared suite's targets serve it); here it is in-process.
 */
import { createMcpHandler } from '@edge-mcp/core';
import { modernRequest, pollTask, readAnswer } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { createExampleServer } from '../src/example/index.ts';

const TASKS = {
  capabilities: {
    extensions: { 'io.modelcontextprotocol/tasks': {} },
    elicitation: { form: {} },
  },
};

function handler() {
  return createMcpHandler(createExampleServer());
}

async function call(
  mcp: ReturnType<typeof handler>,
  method: string,
  params: Record<string, unknown>,
) {
  return readAnswer(await mcp.fetch(modernRequest(method, params, TASKS)));
}

describe('the example task tools', () => {
  test('long_job says it may run again, runs as a task and completes', async () => {
    const mcp = handler();
    const { tools } = (await call(mcp, 'tools/list', {})).message.result;
    const long = tools.find((tool: { name: string }) => tool.name === 'long_job');
    expect(long.annotations).toMatchObject({ idempotentHint: true });
    const started = (await call(mcp, 'tools/call', { name: 'long_job', arguments: { ms: 30 } }))
      .message.result;
    expect(started.resultType).toBe('task');
    const done = await pollTask(
      () => call(mcp, 'tasks/get', { taskId: started.taskId }),
      (status) => status === 'completed',
      'long_job to complete',
    );
    expect(done.result.content).toEqual([{ type: 'text', text: 'long job done: 30 ms of work' }]);
    await mcp.close();
  });

  test('ask_job waits in input_required, takes its answer from tasks/update and completes', async () => {
    const mcp = handler();
    const started = (
      await call(mcp, 'tools/call', { name: 'ask_job', arguments: { job: 'audit' } })
    ).message.result;
    expect(started.resultType).toBe('task');
    const waiting = await pollTask(
      () => call(mcp, 'tasks/get', { taskId: started.taskId }),
      (status) => status === 'input_required',
      'ask_job to ask',
    );
    expect(waiting.inputRequests.ending.method).toBe('elicitation/create');
    expect(waiting.inputRequests.ending.params.message).toBe('How should the audit end?');
    const ack = await call(mcp, 'tasks/update', {
      taskId: started.taskId,
      inputResponses: { ending: { action: 'accept', content: { ending: 'signed off' } } },
    });
    expect(ack.message.result).toMatchObject({ resultType: 'complete' });
    const done = await pollTask(
      () => call(mcp, 'tasks/get', { taskId: started.taskId }),
      (status) => status === 'completed',
      'ask_job to complete',
    );
    expect(done.result.content).toEqual([{ type: 'text', text: 'audit finished: signed off' }]);
    await mcp.close();
  });
});
