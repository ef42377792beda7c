import { defineConformance } from '../src/conformance/define.ts';
import { defineAuthSuite, defineSuite } from '../src/suite/define.ts';
import { BUN_CAPS, bunTarget } from '../src/targets/runtimes.ts';

defineSuite('bun', BUN_CAPS, () => bunTarget());
defineConformance('bun', BUN_CAPS, () => bunTarget('conformance'));
defineAuthSuite('bun', () => bunTarget('auth'));
