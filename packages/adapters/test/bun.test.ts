import { describe } from 'vitest';
import { bunBinary } from './runtime-child.ts';
import { runtimeSuite } from './runtime-suite.ts';

describe('Bun adapter (real bun binary)', () => {
  runtimeSuite({ command: bunBinary(), args: ['run'], mayResetAfterRefusal: true });
});
