/**
 * The Node-only part of the kit: ports, child-process runtimes, Redis, a round-robin proxy and
 * real reverse proxies (nginx, HAProxy) with the documented configurations.
 */
export { type Child, type ChildOptions, killChildren, startChild } from './child.ts';
export {
  documented,
  haproxyDocumented,
  nginxDefaults,
  nginxDocumented,
} from './deploy-configs.ts';
export { freePort } from './ports.ts';
export {
  type ClusterNode,
  type RedisCluster,
  type RedisClusterOptions,
  startRedisCluster,
} from './redis-cluster.ts';
export {
  pingRedis,
  type RedisServer,
  type RedisServerOptions,
  startRedis,
} from './redis-server.ts';
export { type ReverseProxy, startHaproxy, startNginx } from './reverse-proxy.ts';
export { type RoundRobinOptions, type RoundRobinProxy, startRoundRobin } from './round-robin.ts';
export { bunBinary, denoBinary, denoPlatformPackage } from './runtimes.ts';
