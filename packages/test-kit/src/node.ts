/** The Node-only part of the kit: ports, child-process runtimes, Redis and a round-robin proxy. */
export { type Child, type ChildOptions, killChildren, startChild } from './child.ts';
export { freePort } from './ports.ts';
export {
  pingRedis,
  type RedisServer,
  type RedisServerOptions,
  startRedis,
} from './redis-server.ts';
export { type RoundRobinOptions, type RoundRobinProxy, startRoundRobin } from './round-robin.ts';
export { bunBinary, denoBinary, denoPlatformPackage } from './runtimes.ts';
