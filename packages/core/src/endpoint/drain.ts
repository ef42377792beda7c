import type { Scope } from '../lifecycle/scope.ts';
import type { SessionHolder } from '../sessions/session-seams.ts';

/**
 * What a drain (`close({ graceMs })`) ends at once: streams that only wait for news would hold
 * it to its end. A listen stream ends with its completing result; a session's GET stream (and a
 * relay of one held elsewhere) ends without one, and its client resumes it with Last-Event-ID
 * wherever the balancer sends it. The ended stream still stores the session's news until
 * another instance takes it over (then it replays them), so nothing sent meanwhile is lost.
 */
export function endWaitingStreams(listens: Set<Scope>, sessions: SessionHolder | undefined): void {
  for (const listen of listens) listen.abort('shutdown');
  sessions?.forEach((session) => {
    session.standalone?.end();
    for (const relay of session.relays) relay.end();
  });
}
