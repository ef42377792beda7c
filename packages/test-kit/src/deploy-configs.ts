/**
 * The reverse-proxy configurations of `docs/deploying.md`, as the proxy matrix, the rolling
 * deploy and the bench's proxy measure run them: the files in `docs/deploying/` with only their
 * ports changed and, where a test cannot wait a minute, their idle limits scaled down together
 * with the server's keep-alive interval (the same ratio as the documented 60 s against 15 s). A
 * change to a file that this rewriting no longer matches fails the tests rather than testing
 * something else.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** packages/test-kit/src → the repository's docs/deploying. */
const DOCS = join(import.meta.dirname, '..', '..', '..', 'docs', 'deploying');

/** The documented file, read as users copy it. */
export function documented(name: 'nginx.conf' | 'haproxy.cfg'): string {
  return readFileSync(join(DOCS, name), 'utf8');
}

/** Replaces `from` (which must be there) with `to`, everywhere. */
function rewrite(config: string, from: string, to: string): string {
  if (!config.includes(from)) throw new Error(`the documented configuration lost "${from}"`);
  return config.split(from).join(to);
}

/** docs/deploying/nginx.conf listening on `port`, in front of the server on `upstream`. */
export function nginxDocumented(port: number, upstream: number): string {
  let config = documented('nginx.conf');
  config = rewrite(config, 'listen 8080;', `listen 127.0.0.1:${port};`);
  return rewrite(config, '127.0.0.1:8787', `127.0.0.1:${upstream}`);
}

/**
 * nginx as a user leaves it: a bare `proxy_pass` (HTTP/1.0 to the server, `proxy_buffering on`)
 * and an idle limit of `idle` (the default 60 s, scaled down). Not in the docs: the server's
 * `X-Accel-Buffering: no` and keep-alives are what make it work.
 */
export function nginxDefaults(port: number, upstream: number, idle: string): string {
  return [
    'server {',
    `    listen 127.0.0.1:${port};`,
    '    location / {',
    `        proxy_pass http://127.0.0.1:${upstream};`,
    `        proxy_read_timeout ${idle};`,
    '    }',
    '}',
  ].join('\n');
}

/**
 * docs/deploying/haproxy.cfg binding `port`, its three servers on `upstreams` (the same port
 * thrice for one instance), its client and server idle limits at `idle`, its error pages read
 * from docs/deploying.
 */
export function haproxyDocumented(
  port: number,
  upstreams: readonly number[],
  idle: string,
): string {
  let config = documented('haproxy.cfg');
  config = rewrite(config, 'bind :8080', `bind 127.0.0.1:${port}`);
  // The error pages are the documented files, where the docs keep them.
  config = rewrite(config, '/etc/haproxy/errors/', `${DOCS}/`);
  config = rewrite(config, 'timeout client 60s', `timeout client ${idle}`);
  config = rewrite(config, 'timeout server 60s', `timeout server ${idle}`);
  ['8787', '8788', '8789'].forEach((documentedPort, i) => {
    const upstream = upstreams[i] ?? upstreams[0];
    config = rewrite(config, `127.0.0.1:${documentedPort}`, `127.0.0.1:${upstream}`);
  });
  return config;
}
