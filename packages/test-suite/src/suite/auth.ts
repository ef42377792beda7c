import { describe } from 'vitest';
import type { Current } from '../targets/types.ts';
import { bypassTests } from './auth-bypass.ts';
import { challengeTests } from './auth-challenges.ts';
import { scopedListTests } from './auth-scoped-lists.ts';
import { sessionHijackTests } from './auth-session-hijack.ts';

/**
 * Authorization on the target's `auth` fixture (the suite's server as a resource server, tokens
 * `alice-token` and `bob-token`): every piece of a legacy session is bound to the principal that
 * opened it, so another principal holding the session id gets exactly what an unknown id gets.
 * On workerd the Worker authenticates and the session's Durable Object trusts only the principal
 * the Worker hands over.
 */
export function auth(current: Current): void {
  describe('a session is bound to the principal that opened it', () => {
    // In the order the tests always ran: the stateless challenges, the hijacks, the bypasses.
    challengeTests(current);
    sessionHijackTests(current);
    bypassTests(current);
  });
  describe('lists are scoped to the caller', () => {
    scopedListTests(current);
  });
}
