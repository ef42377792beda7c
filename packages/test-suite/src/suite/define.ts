import { afterAll, beforeAll, describe } from 'vitest';
import type { Current, Target, TargetCaps } from '../targets/types.ts';
import { auth } from './auth.ts';
import { basics } from './basics.ts';
import { disconnect } from './disconnect.ts';
import { errors } from './errors.ts';
import { rateLimits } from './rate-limits.ts';
import { refusals } from './refusals.ts';
import { sessions } from './sessions.ts';
import { shutdown } from './shutdown.ts';

/**
 * The shared suite, written once and run against every runtime. `caps` are known up front so
 * `test.skipIf` can name the runtime behaviour that makes a test impossible there.
 */
export function defineSuite(name: string, caps: TargetCaps, start: () => Promise<Target>): void {
  describe(`shared suite on ${name}`, () => {
    const current = {} as Current;
    beforeAll(async () => {
      current.target = await start();
    });
    afterAll(async () => {
      await current.target?.stop();
    });
    basics(current);
    errors(current);
    refusals(current);
    rateLimits(current, caps);
    disconnect(current, caps);
    sessions(current, caps);
    // Last: it ends the server.
    shutdown(current, caps);
  });
}

/**
 * The authorization group against a second server of the target, serving the `auth` fixture
 * (started once for the group; the main suite's server stays without auth).
 */
export function defineAuthSuite(name: string, start: () => Promise<Target>): void {
  describe(`authorization on ${name}`, () => {
    const current = {} as Current;
    beforeAll(async () => {
      current.target = await start();
    });
    afterAll(async () => {
      await current.target?.stop();
    });
    auth(current);
  });
}
