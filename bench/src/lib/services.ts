/**
 * What the package targets need next to their process, started by the bench for each process
 * (`TargetSpec.service`) and stopped after it: a real `redis-server` on a free loopback port (or a
 * sharded Redis Cluster of them), and
 * a tiny authorization server on 127.0.0.1 serving the JSON Web Key Set whose private key signs
 * the bench's bearer token.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRedis, startRedisCluster } from '@edge-mcp/test-kit/node';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { missingBinary } from './paths.ts';
import type { Service } from './spawn.ts';

const REDIS_BINARY = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

/** Why the Redis targets cannot run here, or undefined when `redis-server` is installed. */
export const unavailableRedis = () =>
  missingBinary(REDIS_BINARY, "Debian's redis-server; CI installs it");

/** A fresh, empty `redis-server` (no persistence) for one target process: `REDIS_URL`. */
export async function redisService(): Promise<Service> {
  const redis = await startRedis({ binary: REDIS_BINARY });
  return { env: { REDIS_URL: redis.url }, stop: () => redis.stop() };
}

/**
 * A fresh sharded Redis Cluster (3 primaries, one replica each, the test kit's) for one target
 * process: `REDIS_CLUSTER_NODES`.
 */
export async function redisClusterService(): Promise<Service> {
  const cluster = await startRedisCluster();
  return { env: { REDIS_CLUSTER_NODES: cluster.urls.join(',') }, stop: () => cluster.stop() };
}

/** The resource (the token's audience) the auth target protects. */
export const AUTH_RESOURCE = 'https://bench.edge-mcp.test/mcp';
const KID = 'bench-1';

// RS256: what most authorization servers (Auth0, Okta, Entra ID, Keycloak) sign access tokens
// with by default. One key pair per bench process; generating a 2048-bit RSA key takes a while.
let keys: ReturnType<typeof generateKeyPair> | undefined;

/**
 * The authorization server of the auth target: `GET /jwks` on 127.0.0.1 (the verifier fetches it
 * once and caches it), and a token for the load generator (`Authorization` on every request),
 * valid for an hour with the issuer, the audience and a scope. `JWT_ISSUER`, `JWKS_URL` and
 * `MCP_RESOURCE` tell the target where to look.
 */
export async function jwksService(): Promise<Service> {
  keys ??= generateKeyPair('RS256');
  const { privateKey, publicKey } = await keys;
  const jwk = { ...(await exportJWK(publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  let fetches = 0;
  const server = createServer((req, res) => {
    if (req.url !== '/jwks') {
      res.writeHead(404).end();
      return;
    }
    fetches++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const token = await new SignJWT({ scope: 'mcp', client_id: 'bench' })
    .setProtectedHeader({ alg: 'RS256', kid: KID, typ: 'at+jwt' })
    .setIssuer(issuer)
    .setAudience(AUTH_RESOURCE)
    .setSubject('bench-user')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
  return {
    env: { JWT_ISSUER: issuer, JWKS_URL: `${issuer}/jwks`, MCP_RESOURCE: AUTH_RESOURCE },
    headers: { authorization: `Bearer ${token}` },
    async stop() {
      // The key set is fetched once per process: more would mean the cache does not hold.
      if (fetches > 1) console.error(`jwks: fetched ${fetches} times by one target process`);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
