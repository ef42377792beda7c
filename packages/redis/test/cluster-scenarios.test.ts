/**
 * The test kit's cluster scenarios on Redis: three handlers, each with its own `redisBackend()` on
 * one namespace of a real redis-server (the same scenarios run on the core's memory double). What
 * only Redis shows is in streams.test.ts, stopping.test.ts and cluster-events.test.ts.
 */
import { useRedis } from './helpers.ts';
import { redisClusterScenarios } from './support/contracts.ts';

const redis = useRedis();
redisClusterScenarios(() => redis().url);
