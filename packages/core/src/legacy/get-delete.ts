import type { AuthInfo } from '../auth/auth-info.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import {
  type Answer,
  emptyReply,
  methodNotAllowed,
  overBudget,
  Reply,
  refuse,
  refused,
} from '../http/responses.ts';
import type { RequestLoad } from '../lifecycle/in-flight-load.ts';
import { ErrorCode, HEADER } from '../protocol/constants.ts';
import { notificationMessage } from '../protocol/jsonrpc.ts';
import { parseEventId } from '../sessions/event-store.ts';
import type { Session } from '../sessions/session.ts';
import type { LegacyEndpoint } from './endpoint.ts';
import { endOrphan, relay } from './relay.ts';
import { sessionOf } from './session-of.ts';
import { LegacyStream } from './stream.ts';

/** Id of a session's standalone (GET) stream; request streams count up from 1. */
const STANDALONE = '0';

/**
 * GET: the session's standalone SSE stream, or the resumption of a dropped stream with
 * `Last-Event-ID` (replaying that stream only, then going on live if it is still running).
 *
 * A new GET replaces a standalone stream that is still open rather than being refused with 409:
 * a proxy that silently dropped the old connection would otherwise lock the client out for good.
 *
 * Where sessions span instances (`SessionManager.cluster`), a stream this instance does not hold
 * may be held by another one: it is relayed from there, or served here when nobody holds it.
 */
export async function handleGet(
  endpoint: LegacyEndpoint,
  request: IncomingRequest,
  auth: AuthInfo | undefined,
  /** The GET's place among its principal's requests in flight, held by the stream it opens. */
  load?: RequestLoad,
): Promise<Answer> {
  if (!endpoint.sessions) return notAllowed(endpoint);
  const accept = request.headers.get(HEADER.accept);
  if (accept === null || !/text\/event-stream|text\/\*|\*\/\*/i.test(accept)) {
    return refuse('accept', 406, ErrorCode.InvalidRequest, 'Accept must include text/event-stream');
  }
  const session = await sessionOf(endpoint, request, auth);
  if (session instanceof Reply) return session;
  if (!session) return notAllowed(endpoint);
  const lastEventId = request.headers.get(HEADER.lastEventId);
  const parsed = lastEventId === null ? undefined : parseEventId(lastEventId);
  if (lastEventId !== null && !parsed)
    return refuse(
      'last-event-id',
      400,
      ErrorCode.InvalidRequest,
      'Bad Request: malformed Last-Event-ID',
    );
  const streamId = parsed?.streamId ?? STANDALONE;
  const running = streamId === STANDALONE ? session.standalone : session.streams.get(streamId);
  const over = running?.connected === true ? undefined : overStreams(endpoint, session);
  if (over) return over;
  let orphaned = false;
  if (endpoint.sessions.cluster && !running) {
    const elsewhere = await fromElsewhere(endpoint, session, streamId, lastEventId, request);
    if (elsewhere !== undefined && elsewhere !== 'orphaned') return elsewhere;
    orphaned = elsewhere === 'orphaned';
  }
  if (streamId === STANDALONE) {
    session.viewer = auth;
    session.standalone ??= new LegacyStream(session, STANDALONE, endpoint.legacy);
    const stream = session.standalone;
    const answer =
      lastEventId === null
        ? stream.connect(request.signal, true, load)
        : stream.resume(lastEventId, request.signal, load);
    // Taken over from a home that died or gave it up: a list change or resource update raised
    // while it moved may have reached no stream, so the client is told to read the lists and its
    // subscribed resources again (one notice too many costs a refetch; one too few, stale data).
    if (orphaned) void Promise.resolve(answer).then(() => catchUp(endpoint, session, stream));
    return answer;
  }
  if (running) return running.resume(lastEventId as string, request.signal, load);
  // A finished stream: replay what is stored, then end.
  const finished = new LegacyStream(session, streamId, endpoint.legacy);
  finished.end();
  return finished.resume(lastEventId as string, request.signal, load);
}

/**
 * A stream this instance does not hold, where sessions span instances: relayed from the
 * instance that holds it; `'orphaned'` when its holder is gone (a request stream's replay is
 * then ended with `instance-lost`; a standalone one moves here and catches up); `undefined` when
 * it is served here as it is.
 */
async function fromElsewhere(
  endpoint: LegacyEndpoint,
  session: Session,
  streamId: string,
  lastEventId: string | null,
  request: IncomingRequest,
): Promise<Answer | 'orphaned' | undefined> {
  const cluster = endpoint.sessions?.cluster;
  if (!cluster) return undefined;
  const link = await cluster.link(session, streamId, lastEventId ?? undefined);
  if (typeof link === 'object')
    return relay(
      session,
      streamId,
      lastEventId ?? undefined,
      link,
      endpoint.legacy,
      request.signal,
    );
  if (link !== 'orphaned') return undefined;
  if (lastEventId !== null && streamId !== STANDALONE)
    await endOrphan(session, lastEventId, endpoint.legacy);
  return 'orphaned';
}

/**
 * The catch-up of a moved standalone stream: a `list_changed` of every list the server announces
 * changes of, then a `resources/updated` of every resource the session subscribed to.
 */
function catchUp(
  endpoint: LegacyEndpoint,
  session: Session,
  stream: { send(message: string): void },
): void {
  const caps = endpoint.registry.capabilities();
  for (const kind of ['tools', 'prompts', 'resources'] as const)
    if (caps[kind] !== undefined)
      stream.send(notificationMessage(`notifications/${kind}/list_changed`, {}));
  for (const uri of session.subscriptions)
    stream.send(notificationMessage('notifications/resources/updated', { uri }));
}

/**
 * The 429 of a session with `maxStreamsPerSession` connections open, for a GET that would add
 * one (a new connection of a stream that has one replaces it, so it is never asked).
 */
function overStreams(endpoint: LegacyEndpoint, session: Session): Reply | undefined {
  const max = endpoint.limits.maxStreamsPerSession;
  if (session.connections < max) return undefined;
  endpoint.streams.counters.rejected++;
  return refused(
    overBudget(429, `This session has ${max} open streams already`),
    'session-streams',
  );
}

/** DELETE: ends the session (reason `session-deleted`); its id answers 404 from then on. */
export async function handleDelete(
  endpoint: LegacyEndpoint,
  request: IncomingRequest,
  auth: AuthInfo | undefined,
): Promise<Answer> {
  const manager = endpoint.sessions;
  const session = manager && (await sessionOf(endpoint, request, auth));
  if (!manager || !session) return notAllowed(endpoint);
  if (session instanceof Reply) return session;
  await manager.close(session.id, 'session-deleted');
  return emptyReply(200);
}

/** GET or DELETE where the handler keeps no sessions. */
function notAllowed(endpoint: LegacyEndpoint): Reply {
  return refused(methodNotAllowed(endpoint.allow), 'method-not-allowed');
}
