import type { HandlerCore } from '../http/handler.ts';
import type { IncomingRequest } from '../http/incoming.ts';
import {
  type Answer,
  emptyReply,
  errorResponse,
  methodNotAllowed,
  Reply,
} from '../http/responses.ts';
import { ErrorCode, HEADER } from '../protocol/constants.ts';
import { sessionOf } from './dispatch.ts';
import { parseEventId } from './event-store.ts';
import { LegacyStream } from './stream.ts';

/** Id of a session's standalone (GET) stream; request streams count up from 1. */
const STANDALONE = '0';

/**
 * GET: the session's standalone SSE stream, or the resumption of a dropped stream with
 * `Last-Event-ID` (replaying that stream only, then going on live if it is still running).
 *
 * A new GET replaces a standalone stream that is still open rather than being refused with 409:
 * a proxy that silently dropped the old connection would otherwise lock the client out for good.
 */
export async function handleGet(core: HandlerCore, request: IncomingRequest): Promise<Answer> {
  if (!core.sessions) return methodNotAllowed(core.allow);
  const accept = request.headers.get('accept');
  if (accept === null || !/text\/event-stream|text\/\*|\*\/\*/i.test(accept)) {
    return errorResponse(406, ErrorCode.InvalidRequest, 'Accept must include text/event-stream');
  }
  const session = sessionOf(core, request);
  if (session instanceof Reply) return session;
  if (!session) return methodNotAllowed(core.allow);
  const lastEventId = request.headers.get(HEADER.lastEventId);
  if (lastEventId !== null) {
    const parsed = parseEventId(lastEventId);
    if (!parsed)
      return errorResponse(400, ErrorCode.InvalidRequest, 'Bad Request: malformed Last-Event-ID');
    if (parsed.streamId === STANDALONE) {
      session.standalone ??= new LegacyStream(session, STANDALONE, core.legacy);
      return session.standalone.resume(lastEventId, request.signal);
    }
    const running = session.streams.get(parsed.streamId);
    if (running) return running.resume(lastEventId, request.signal);
    // A finished stream: replay what is stored, then end.
    const finished = new LegacyStream(session, parsed.streamId, core.legacy);
    finished.end();
    return finished.resume(lastEventId, request.signal);
  }
  session.standalone ??= new LegacyStream(session, STANDALONE, core.legacy);
  return session.standalone.connect(request.signal);
}

/** DELETE: ends the session (reason `session-deleted`); its id answers 404 from then on. */
export function handleDelete(core: HandlerCore, request: IncomingRequest): Answer {
  const session = core.sessions && sessionOf(core, request);
  if (!session) return methodNotAllowed(core.allow);
  if (session instanceof Reply) return session;
  core.sessions?.close(session.id, 'session-deleted');
  return emptyReply(200);
}
