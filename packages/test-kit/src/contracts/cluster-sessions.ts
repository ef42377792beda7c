/** The cluster scenarios of legacy sessions served by several instances (cluster.ts runs them). */
import { expect, test } from 'vitest';
import { readAnswer } from '../answer.ts';
import { legacyDeleteRequest, legacyRequest, notificationRequest, postRequest } from '../legacy.ts';
import { openSession } from '../session.ts';
import { SseReader } from '../sse-reader.ts';
import { aborted } from '../wait.ts';
import { type ClusterTarget, call, ELICIT, get, ping, type Three, tool, V } from './cluster-kit.ts';

export function sessionScenarios(target: ClusterTarget, three: Three): void {
  test('any instance serves the session; state written on one is seen on the next', async () => {
    const [a, b, c] = await three();
    const session = await openSession(a.handler, V);
    const counts: string[] = [];
    for (const node of [b, c, a, b, b])
      counts.push(
        (await readAnswer(await call(node, session, 'count'))).message.result.content[0].text,
      );
    expect(counts).toEqual(['1', '2', '3', '4', '5']);
  });

  test('notifications/cancelled on B aborts the handler running on A (client-cancel)', async () => {
    const [a, b] = await three();
    const session = await openSession(a.handler, V);
    const started = a.started();
    const pending = a.handler.fetch(
      legacyRequest('tools/call', tool('sleep', { ms: 30_000 }), session, { version: V, id: 7 }),
    );
    const signal = await started;
    const cancel = await b.handler.fetch(
      notificationRequest('notifications/cancelled', { requestId: 7 }, session, { version: V }),
    );
    expect(cancel.status).toBe(202);
    expect(await aborted(signal, 1000)).toMatchObject({ type: 'client-cancel' });
    expect((await pending).status).toBe(200);
  });

  test('a server→client request from A, answered by a response POSTed to C, reaches the handler on A', async () => {
    const [a, , c] = await three();
    const session = await openSession(a.handler, V, ELICIT);
    const reader = new SseReader(await call(a, session, 'ask'));
    const asked = await reader.until((m) => m.method === 'elicitation/create');
    const posted = await c.handler.fetch(
      postRequest(
        { jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Ada' } } },
        session,
        { version: V },
      ),
    );
    expect(posted.status).toBe(202);
    const result = await reader.until((m) => m.result !== undefined);
    expect(result.result.content[0].text).toBe('hello Ada');
  });

  test("Last-Event-ID on B relays A's live stream: every event once, in order, then the answer", async () => {
    const [a, b] = await three();
    const session = await openSession(a.handler, V);
    const count = 60;
    const first = new SseReader(await call(a, session, 'drip', { count, ms: 3 }, true));
    const seen: number[] = [];
    const ids: string[] = [];
    let last: string | undefined;
    while (seen.length < 5) {
      const message = await first.message();
      if (message?.method === 'notifications/progress') {
        seen.push(message.params.progress);
        ids.push(message._eventId as string);
      }
      last = message?._eventId ?? last;
    }
    await first.cancel();
    // The handler on A goes on (the stream is resumable: grace), storing its progress.
    const before = target.received(b);
    const resumed = await get(b, session, last);
    let answer: Record<string, any> | undefined;
    for (let m = await resumed.message(); m; m = await resumed.message()) {
      if (m.method === 'notifications/progress') {
        seen.push(m.params.progress);
        ids.push(m._eventId as string);
      } else if (m.result) answer = m;
    }
    expect(seen).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    const seqs = ids.map((id) => Number(id.slice(id.lastIndexOf('-') + 1)));
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(answer?.result.content[0].text).toBe('dripped');
    // Forwarded from A as they happened, not only replayed from the store.
    expect(target.received(b)).toBeGreaterThan(before);
    expect(a.signals[0]?.aborted).toBe(false);
    // The relay counted as B's stream, and is over.
    expect(b.handler.stats().openStreams).toBe(0);
  });

  test("a relay's client leaving gives A's handler its disconnect grace, and a resume on C within it completes", async () => {
    const [a, b, c] = await three();
    const session = await openSession(a.handler, V);
    const first = new SseReader(await call(a, session, 'drip', { count: 30, ms: 5 }, true));
    const one = await first.until((m) => m.method === 'notifications/progress');
    await first.cancel();
    const relayed = await get(b, session, one._eventId);
    const two = await relayed.until((m) => m.method === 'notifications/progress');
    await relayed.cancel();
    const rest = await (await get(c, session, two._eventId)).rest();
    expect(rest.at(-1)?.result.content[0].text).toBe('dripped');
    expect(a.signals[0]?.aborted).toBe(false);
  });

  test("DELETE on B ends A's GET stream and call (session-deleted); onSessionClose fires once, on B", async () => {
    const nodes = await three();
    const [a, b, c] = nodes;
    const session = await openSession(a.handler, V);
    const stream = await get(a, session);
    expect((await stream.next())?.id).toBe('0-0');
    const started = a.started();
    const running = call(a, session, 'sleep', { ms: 30_000 });
    const signal = await started;
    const deleted = await b.handler.fetch(legacyDeleteRequest(session, { version: V }));
    expect(deleted.status).toBe(200);
    expect(await stream.next()).toBeUndefined();
    expect(await aborted(signal, 1000)).toMatchObject({ type: 'session-deleted' });
    expect((await running).status).toBe(404);
    for (const node of nodes) expect((await ping(node, session)).status).toBe(404);
    expect(b.closes.map((e) => e.reason)).toEqual(['session-deleted']);
    expect([...a.closes, ...c.closes]).toEqual([]);
  });

  test("a fresh GET on B relays the standalone stream homed on A (primed with A's newest id)", async () => {
    const [a, b] = await three();
    const session = await openSession(a.handler, V);
    const home = await get(a, session);
    await home.next();
    a.server.notifyListChanged('tools');
    const before = await home.message();
    // B's GET takes the connection over; A still stores and sends (it is the home).
    const relayed = await get(b, session);
    expect((await relayed.next())?.id).toBe(before?._eventId);
    expect(await home.next()).toBeUndefined();
    a.server.notifyListChanged('prompts');
    expect((await relayed.message())?.method).toBe('notifications/prompts/list_changed');
    await relayed.cancel();
  });
}
