import { describe } from 'vitest';
import { runtimeSuite } from './runtime-suite.ts';

describe('Node adapter (child process)', () => {
  runtimeSuite({ command: process.execPath, args: ['--import', 'tsx'] });
});
