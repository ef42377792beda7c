/** The process-level cluster scenarios (`src/process-scenarios.ts`) on one redis-server. */
import { processScenarios } from '../src/process-scenarios.ts';

processScenarios({ sharded: false });
