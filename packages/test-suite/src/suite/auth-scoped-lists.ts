/**
 * Lists scoped to the caller (issue 28, item 3), on every target's `auth` fixture: the example's
 * `admin_scopes` is `visibleTo: ['mcp:admin']`, which Alice's token grants and Bob's does not, and
 * the fixture's `bob_only` is visible to Bob alone (a predicate). Neither finds the other's in a
 * list or can call it (an unknown tool, as one nobody registered); its owner can,
 * statelessly and on a legacy session (on workerd: through the session's Durable Object, which
 * gets the principal and scopes from the Worker).
 */
import { legacy, modern, readAnswer } from '@edge-mcp/test-kit';
import { expect, test } from 'vitest';
import type { Current } from '../targets/types.ts';
import { ALICE, BOB, openSession, VERSION } from './auth-clients.ts';

const TOOL = 'admin_scopes';
const BOBS = 'bob_only';

async function tools(answer: Response): Promise<string[]> {
  const { message } = await readAnswer(answer);
  return (message.result?.tools ?? []).map((tool: { name: string }) => tool.name);
}

/** Registers the scoped-list tests; called inside the group's `describe`. */
export function scopedListTests(current: Current): void {
  test('two principals see different tools/list results, statelessly and on sessions', async () => {
    const { mcpUrl } = current.target;
    const alice = await tools(await fetch(mcpUrl, modern('tools/list', {}, { headers: ALICE })));
    const bob = await tools(await fetch(mcpUrl, modern('tools/list', {}, { headers: BOB })));
    expect(alice).toContain(TOOL);
    expect(alice).not.toContain(BOBS);
    expect(bob).toContain(BOBS);
    expect(bob).not.toContain(TOOL);
    // Everything else is the same list.
    const shared = (names: string[]) => names.filter((name) => name !== TOOL && name !== BOBS);
    expect(shared(alice)).toEqual(shared(bob));
    for (const [auth, sees] of [
      [ALICE, true],
      [BOB, false],
    ] as const) {
      const session = await openSession(mcpUrl, auth);
      const listed = await tools(
        await fetch(mcpUrl, legacy('tools/list', {}, session, { ...VERSION, headers: auth })),
      );
      expect(listed.includes(TOOL)).toBe(sees);
    }
  });

  test('neither can call what it does not see: the hidden tool is an unknown tool, not a 403', async () => {
    const { mcpUrl } = current.target;
    const call = async (name: string, auth: Record<string, string>, session?: string) =>
      readAnswer(
        await fetch(
          mcpUrl,
          session === undefined
            ? modern('tools/call', { name, arguments: {} }, { headers: auth })
            : legacy('tools/call', { name, arguments: {} }, session, { ...VERSION, headers: auth }),
        ),
      );
    const hidden = await call(TOOL, BOB);
    const missing = await call('no_such_tool', BOB);
    expect(hidden.status).toBe(missing.status);
    expect(hidden.message.error?.code).toBe(-32602);
    expect(hidden.message.error?.code).toBe(missing.message.error?.code);
    expect(hidden.message.error?.message).toBe(`Unknown tool: ${TOOL}`);
    const bobs = await openSession(mcpUrl, BOB);
    const onSession = await call(TOOL, BOB, bobs);
    expect(onSession.message.error).toMatchObject({
      code: -32602,
      message: `Unknown tool: ${TOOL}`,
    });
    const allowed = await call(TOOL, ALICE);
    expect(JSON.parse(allowed.message.result?.content?.[0]?.text ?? '{}')).toEqual({
      principal: 'alice',
      scopes: ['mcp:tools', 'mcp:admin'],
    });
    expect((await call(BOBS, ALICE)).message.error?.message).toBe(`Unknown tool: ${BOBS}`);
    expect((await call(BOBS, BOB)).message.result?.content?.[0]?.text).toBe('for bob');
    const alices = await openSession(mcpUrl, ALICE);
    expect((await call(BOBS, ALICE, alices)).message.error?.message).toBe(`Unknown tool: ${BOBS}`);
    expect((await call(TOOL, ALICE, alices)).message.result?.content?.[0]?.text).toContain('alice');
  });
}
