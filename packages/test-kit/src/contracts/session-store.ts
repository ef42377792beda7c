/**
 * The contract every `SessionStore` passes (unstorage's `testDriver()` model), through the handler
 * as a client sees it: what a session keeps survives a restart, DELETE and the idle timeout remove
 * it, a busy session is never timed out, and (for a shared store) a change on one instance is seen
 * by the next request on another. The cases use Web APIs only, so they run in Node (memory,
 * Redis) and inside workerd (a Durable Object); `runCases` binds them to vitest's `test`.
 */
import { readAnswer } from '../answer.ts';
import { legacyDeleteRequest, legacyGetRequest, legacyRequest } from '../legacy.ts';
import { openSession } from '../session.ts';
import { within } from '../wait.ts';

/** What a contract tool gets of its context: the legacy session's state. */
interface ContractToolContext {
  readonly session?: { readonly state: Map<string, unknown> } | undefined;
}

/**
 * The two tools the session-store contract calls, for the target's server:
 * `for (const [name, handler] of CONTRACT_TOOLS) server.tool(name, {}, handler)`.
 */
export const CONTRACT_TOOLS: ReadonlyArray<
  readonly [string, (args: Record<string, unknown>, ctx: ContractToolContext) => string]
> = [
  [
    'remember',
    (args, ctx) => {
      ctx.session?.state.set('value', args.value);
      return 'kept';
    },
  ],
  ['recall', (_args, ctx) => String(ctx.session?.state.get('value') ?? '')],
];

/** A handler as the contract drives it. */
export interface ContractHandler {
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

/** What the handler of a case is given, beside its store. */
export interface ContractHandlerOptions {
  idleTimeoutMs: number;
  /** Called with the reason of every session that ends on this handler (`onSessionClose`). */
  onSessionClose(reason: string): void;
}

/** How a store is put under the contract. The handler serves the two `CONTRACT_TOOLS`. */
export interface SessionStoreTarget<S> {
  /** A new store over empty storage (memory: `undefined`, sessions in the handler only). */
  store(): S | Promise<S>;
  /**
   * A second store over the same storage, as a restarted process builds it. Absent when nothing
   * outlives the handler (memory): the cases about restarts are left out.
   */
  reopen?(store: S): S | Promise<S>;
  /** `createMcpHandler` with `sessions: new SessionManager({ store, idleTimeoutMs })`. */
  handler(store: S, options: ContractHandlerOptions): ContractHandler | Promise<ContractHandler>;
  /** The store keeps one session at a time (a Durable Object's): a new one ends the one before. */
  single?: boolean;
  /** Several instances use the store at once (each revalidates on every request). */
  shared?: boolean;
}

export interface ContractCase<T> {
  readonly name: string;
  /** Absent: the case applies to every target. */
  applies?(target: T): boolean;
  run(target: T): Promise<void>;
}

function check(holds: boolean, what: string): void {
  if (!holds) throw new Error(`contract: ${what}`);
}

const LONG = 600_000;

function reopen<S>(target: SessionStoreTarget<S>, store: S): S | Promise<S> {
  if (!target.reopen) throw new Error('contract: this case needs a target that reopens its store');
  return target.reopen(store);
}

/** The reasons a handler's sessions ended with, and a way to wait for the next one. */
function closings() {
  const reasons: string[] = [];
  let wake: (() => void) | undefined;
  return {
    reasons,
    onSessionClose(reason: string) {
      reasons.push(reason);
      wake?.();
    },
    async next(count: number, what: string, ms = 10_000): Promise<string> {
      while (reasons.length < count) {
        await within(
          new Promise<void>((resolve) => {
            wake = resolve;
          }),
          what,
          ms,
        );
      }
      return reasons[count - 1] as string;
    },
  };
}

async function call(
  handler: ContractHandler,
  session: string,
  name: string,
  args: Record<string, unknown> = {},
) {
  const response = await handler.fetch(
    legacyRequest('tools/call', { name, arguments: args }, session),
  );
  if (response.status !== 200) {
    await response.body?.cancel();
    return { status: response.status, text: undefined };
  }
  const answer = await readAnswer(response);
  const text = answer.message?.result?.content?.[0]?.text as string | undefined;
  return { status: 200, text };
}

/** What a store must do, as the handler over it shows. */
export const sessionStoreContract: ReadonlyArray<ContractCase<SessionStoreTarget<unknown>>> = [
  {
    name: 'a session and its state go on after a restart; DELETE removes them',
    applies: (target) => target.reopen !== undefined,
    async run(target) {
      const store = await target.store();
      const first = await target.handler(store, { idleTimeoutMs: LONG, onSessionClose() {} });
      const session = await openSession(first);
      check((await call(first, session, 'remember', { value: 'kept' })).status === 200, 'remember');
      await first.close();
      const restarted = await target.handler(await reopen(target, store), {
        idleTimeoutMs: LONG,
        onSessionClose() {},
      });
      const recalled = await call(restarted, session, 'recall');
      check(
        recalled.text === 'kept',
        `the restarted handler recalls 'kept' (got ${recalled.text})`,
      );
      const deleted = await restarted.fetch(legacyDeleteRequest(session));
      check(deleted.status === 200, `DELETE answers 200 (got ${deleted.status})`);
      await restarted.close();
      const again = await target.handler(await reopen(target, store), {
        idleTimeoutMs: LONG,
        onSessionClose() {},
      });
      check((await call(again, session, 'recall')).status === 404, 'a deleted session is 404');
      await again.close();
    },
  },
  {
    name: 'a session id the store never made is 404',
    async run(target) {
      const handler = await target.handler(await target.store(), {
        idleTimeoutMs: LONG,
        onSessionClose() {},
      });
      const known = await openSession(handler);
      // Same shape as a real id (a store may route by its prefix), another random part.
      const forged = `${known.slice(0, -8)}${known.endsWith('00000000') ? '11111111' : '00000000'}`;
      check((await call(handler, forged, 'recall')).status === 404, 'a forged id is 404');
      check((await call(handler, known, 'recall')).status === 200, 'the real one still answers');
      await handler.close();
    },
  },
  {
    name: 'an idle session times out and its record goes with it',
    async run(target) {
      const store = await target.store();
      const closed = closings();
      const handler = await target.handler(store, { idleTimeoutMs: 150, ...closed });
      const session = await openSession(handler);
      check((await closed.next(1, 'the idle timeout')) === 'session-expired', 'session-expired');
      check((await call(handler, session, 'recall')).status === 404, 'an expired session is 404');
      await handler.close();
      if (!target.reopen) return;
      const restarted = await target.handler(await target.reopen(store), {
        idleTimeoutMs: LONG,
        onSessionClose() {},
      });
      check((await call(restarted, session, 'recall')).status === 404, 'and after a restart too');
      await restarted.close();
    },
  },
  {
    name: 'a session with an open stream never times out; once it ends, the session does',
    applies: (target) => !target.single,
    async run(target) {
      const closed = closings();
      const handler = await target.handler(await target.store(), { idleTimeoutMs: 150, ...closed });
      const busy = await openSession(handler);
      const stream = await handler.fetch(legacyGetRequest(busy));
      check(stream.status === 200, `the GET stream opens (got ${stream.status})`);
      // The barrier: a session opened later, idle all along, times out first.
      const idle = await openSession(handler);
      check((await closed.next(1, 'the idle session')) === 'session-expired', 'the idle one ends');
      check((await call(handler, busy, 'recall')).status === 200, 'the busy one still answers');
      check((await call(handler, idle, 'recall')).status === 404, 'the idle one is gone');
      await stream.body?.cancel();
      check((await closed.next(2, 'the stream’s session')) === 'session-expired', 'then it ends');
      await handler.close();
    },
  },
  {
    name: 'one session per store: a new one ends the one before',
    applies: (target) => target.single === true,
    async run(target) {
      const closed = closings();
      const handler = await target.handler(await target.store(), {
        idleTimeoutMs: LONG,
        ...closed,
      });
      const before = await openSession(handler);
      const after = await openSession(handler);
      check(before !== after, 'a new id');
      check(closed.reasons[0] === 'session-deleted', `the first ended (${closed.reasons[0]})`);
      check((await call(handler, before, 'recall')).status === 404, 'the first is 404');
      check((await call(handler, after, 'recall')).status === 200, 'the second answers');
      await handler.close();
    },
  },
  {
    name: 'sessions get distinct ids',
    applies: (target) => !target.single,
    async run(target) {
      const handler = await target.handler(await target.store(), {
        idleTimeoutMs: LONG,
        onSessionClose() {},
      });
      const ids = new Set<string>();
      for (let i = 0; i < 5; i++) ids.add(await openSession(handler));
      check(ids.size === 5, 'five sessions, five ids');
      await handler.close();
    },
  },
  {
    name: 'a change on one instance is seen by the next request on another',
    applies: (target) => target.shared === true && target.reopen !== undefined,
    async run(target) {
      const store = await target.store();
      const a = await target.handler(store, { idleTimeoutMs: LONG, onSessionClose() {} });
      const b = await target.handler(await reopen(target, store), {
        idleTimeoutMs: LONG,
        onSessionClose() {},
      });
      const session = await openSession(a);
      await call(a, session, 'remember', { value: 'one' });
      check((await call(b, session, 'recall')).text === 'one', 'b sees what a stored');
      await call(b, session, 'remember', { value: 'two' });
      check((await call(a, session, 'recall')).text === 'two', 'a sees what b stored');
      check((await a.fetch(legacyDeleteRequest(session))).status === 200, 'a deletes it');
      check((await call(b, session, 'recall')).status === 404, 'b no longer has it');
      await a.close();
      await b.close();
    },
  },
];

/** Binds contract cases to a test runner's `test` (vitest's), each for `target`. */
export function runCases<T>(
  test: (name: string, fn: () => Promise<void>, timeoutMs?: number) => void,
  cases: ReadonlyArray<ContractCase<T>>,
  target: T,
): void {
  for (const contractCase of cases) {
    if (contractCase.applies && !contractCase.applies(target)) continue;
    test(contractCase.name, () => contractCase.run(target), 30_000);
  }
}
