/**
 * What the proxy matrix checks in every cell, through the proxy as a client reaches the server:
 * events arrive one by one (each before the server writes the next), keep-alives carry a quiet
 * stream past the proxy's idle limit, a cut stream resumes with Last-Event-ID and loses nothing,
 * a client that leaves cancels its call, and the Host/Origin guard sees what the proxy forwards.
 */
import { request as httpRequest } from 'node:http';
import {
  LEGACY,
  legacy,
  legacyGet,
  modern,
  openSession,
  readAnswer,
  type SseMessage,
  SseReader,
  until,
  within,
} from '@edge-mcp/test-kit';
import type { LogLine } from './targets/types.ts';

const LIST_CHANGED = 'notifications/tools/list_changed';

/** A legacy call of `name` on `session`, answered. */
async function callLegacy(url: string, session: string, name: string): Promise<void> {
  const answer = await readAnswer(
    await fetch(
      `${url}/mcp`,
      legacy('tools/call', { name, arguments: {} }, session, { version: LEGACY }),
    ),
  );
  if (answer.status !== 200) throw new Error(`${name} answered ${answer.status}`);
}

/** A session's GET stream through `url`, resumed after `lastEventId` when given. */
async function openGet(url: string, session: string, lastEventId?: string): Promise<SseReader> {
  const response = await fetch(`${url}/mcp`, legacyGet(session, lastEventId, { version: LEGACY }));
  if (response.status !== 200) throw new Error(`the GET stream answered ${response.status}`);
  return new SseReader(response);
}

async function nextListChanged(reader: SseReader, what: string): Promise<SseMessage> {
  return within(
    reader.until((message) => message.method === LIST_CHANGED, what),
    what,
    10_000,
  );
}

/**
 * A POST's SSE answer and a session's GET stream: the server writes event n+1 only once the
 * client has seen event n (it waits for the client's next request), so a proxy that holds events
 * back stalls the exchange and the wait fails. Returns the progress steps seen, in order.
 */
export async function eventsOneByOne(url: string): Promise<number[]> {
  const gate = `g${Math.random().toString(36).slice(2)}`;
  const response = await fetch(
    `${url}/mcp`,
    modern(
      'tools/call',
      { name: 'gated', arguments: { gate, count: 4 } },
      { meta: { progressToken: gate } },
    ),
  );
  const reader = new SseReader(response);
  const steps: number[] = [];
  for (;;) {
    const message = await within(
      reader.message(),
      `event ${steps.length + 1} through the proxy`,
      10_000,
    );
    if (message === undefined) throw new Error('the stream ended before the result');
    if (message.method !== 'notifications/progress') {
      if (message.result?.content?.[0]?.text !== 'passed 4 gates')
        throw new Error(JSON.stringify(message));
      break;
    }
    steps.push(message.params.progress);
    await fetch(
      `${url}/mcp`,
      modern('tools/call', {
        name: 'open-gate',
        arguments: { gate, step: message.params.progress },
      }),
    ).then(readAnswer);
  }
  const session = await openSession(`${url}/mcp`, LEGACY);
  const get = await openGet(url, session);
  for (let i = 0; i < 3; i++) {
    await callLegacy(url, session, 'touch');
    await nextListChanged(get, `list_changed ${i + 1} on the GET stream`);
  }
  return steps;
}

/**
 * A GET stream left quiet until `comments` keep-alive comments arrived (longer than the proxy's
 * idle limit), then an event on that same connection.
 */
export async function quietStreamSurvives(url: string, comments: number): Promise<void> {
  const session = await openSession(`${url}/mcp`, LEGACY);
  const response = await fetch(`${url}/mcp`, legacyGet(session, undefined, { version: LEGACY }));
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  const read = async (): Promise<void> => {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the proxy cut the quiet stream; it had read:\n${text}`);
    text += decoder.decode(value, { stream: true });
  };
  const seen = () => text.split('\n').filter((line) => line.startsWith(':')).length;
  while (seen() < comments) await within(read(), `keep-alive comment ${seen() + 1}`, 10_000);
  await callLegacy(url, session, 'touch');
  while (!text.includes(LIST_CHANGED)) await within(read(), 'the event after the quiet', 10_000);
  await reader.cancel();
}

/**
 * A GET stream the proxy cuts once it is quiet for its idle limit: the events sent while it is
 * cut are replayed on the resumed stream (Last-Event-ID), then it goes on live. Returns the
 * event ids seen, in order, one per event.
 */
export async function cutStreamResumes(url: string): Promise<string[]> {
  const session = await openSession(`${url}/mcp`, LEGACY);
  const first = await openGet(url, session);
  await callLegacy(url, session, 'touch');
  const ids = [(await nextListChanged(first, 'the first event'))._eventId as string];
  // The proxy ends the quiet stream (its idle limit); the session goes on.
  await within(
    first.until(() => false, 'the end of the stream').catch(() => undefined),
    'the cut',
    15_000,
  );
  await callLegacy(url, session, 'touch');
  await callLegacy(url, session, 'touch');
  const resumed = await openGet(url, session, ids[0]);
  ids.push((await nextListChanged(resumed, 'the first missed event'))._eventId as string);
  ids.push((await nextListChanged(resumed, 'the second missed event'))._eventId as string);
  await callLegacy(url, session, 'touch');
  ids.push((await nextListChanged(resumed, 'the live event after the resume'))._eventId as string);
  return ids;
}

/**
 * A 2026-07-28 call whose client leaves at the proxy: the server's log (read from `direct`, the
 * server itself) says it was cancelled for `disconnect`.
 */
export async function dropCancels(url: string, direct: string): Promise<LogLine | undefined> {
  const id = `drop-${Math.random().toString(36).slice(2)}`;
  const controller = new AbortController();
  const call = fetch(`${url}/mcp`, {
    ...modern('tools/call', { name: 'sleep', arguments: { ms: 60_000 } }, { id }),
    signal: controller.signal,
  }).catch(() => undefined);
  await until(
    async () => {
      const health = (await (await fetch(`${direct}/health`)).json()) as { inFlight: number };
      return health.inFlight >= 1;
    },
    'the call to run',
    10_000,
  );
  controller.abort();
  await call;
  return until(
    async () => {
      const log = (await (await fetch(`${direct}/__log`)).json()) as LogLine[];
      return log.find((line) => line.kind === 'request' && line.id === id);
    },
    'the call to be logged',
    10_000,
  );
}

/**
 * One request through the proxy from the loopback address `from` (so the proxy's own address
 * and the client's differ), with `Host` and optional `Origin`: the status and whoami's answer.
 */
export function whoamiFrom(
  proxy: string,
  from: string,
  host: string,
  origin?: string,
): Promise<{ status: number; seen?: Record<string, unknown> }> {
  const init = modern('tools/call', { name: 'whoami', arguments: {} });
  const headers = {
    ...(init.headers as Record<string, string>),
    host,
    ...(origin ? { origin } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${proxy}/mcp`,
      { method: 'POST', headers, localAddress: from },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status !== 200) return resolve({ status });
          const text = JSON.parse(body).result.content[0].text as string;
          resolve({ status, seen: JSON.parse(text) });
        });
      },
    );
    req.on('error', reject);
    req.end(init.body as string);
  });
}
