/**
 * The process-level cluster scenarios (`src/process-scenarios.ts`) on a sharded Redis Cluster:
 * 3 primaries with one replica each, started by the test kit.
 */
import { processScenarios } from '../src/process-scenarios.ts';

processScenarios({ sharded: true });
