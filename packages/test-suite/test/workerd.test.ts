import { defineConformance } from '../src/conformance/define.ts';
import { defineAuthSuite, defineSuite } from '../src/suite/define.ts';
import { WORKERD_CAPS, workerdTarget } from '../src/targets/runtimes.ts';

defineSuite('workerd', WORKERD_CAPS, () => workerdTarget());
defineConformance('workerd', WORKERD_CAPS, () => workerdTarget('conformance'));
defineAuthSuite('workerd', () => workerdTarget('auth'));
