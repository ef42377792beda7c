import { defineConformance } from '../src/conformance/define.ts';
import { defineAuthSuite, defineSuite } from '../src/suite/define.ts';
import { NODE_CAPS } from '../src/targets/node.ts';
import { nodeDirectTarget } from '../src/targets/node-direct.ts';

// The same suite and conformance through the Node adapter's fast path (serve(handler) directly).
defineSuite('node (handler served directly)', NODE_CAPS, () => nodeDirectTarget());
defineConformance('node-direct', NODE_CAPS, () => nodeDirectTarget('conformance'));
defineAuthSuite('node (handler served directly)', () => nodeDirectTarget('auth'));
