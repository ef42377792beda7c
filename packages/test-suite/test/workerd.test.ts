import { defineSuite } from '../src/suite/define.ts';
import { WORKERD_CAPS, workerdTarget } from '../src/targets/runtimes.ts';

defineSuite('workerd', WORKERD_CAPS, () => workerdTarget());
