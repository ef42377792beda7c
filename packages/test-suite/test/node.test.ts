import { defineConformance } from '../src/conformance/define.ts';
import { defineAuthSuite, defineSuite } from '../src/suite/define.ts';
import { NODE_CAPS, nodeTarget } from '../src/targets/node.ts';

defineSuite('node', NODE_CAPS, () => nodeTarget());
defineConformance('node', NODE_CAPS, () => nodeTarget('conformance'));
defineAuthSuite('node', () => nodeTarget('auth'));
