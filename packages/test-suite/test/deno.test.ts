import { defineConformance } from '../src/conformance/define.ts';
import { defineAuthSuite, defineSuite } from '../src/suite/define.ts';
import { DENO_CAPS, denoTarget } from '../src/targets/runtimes.ts';

defineSuite('deno', DENO_CAPS, () => denoTarget());
defineConformance('deno', DENO_CAPS, () => denoTarget('conformance'));
defineAuthSuite('deno', () => denoTarget('auth'));
