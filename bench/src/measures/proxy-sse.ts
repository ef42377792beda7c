/**
 * SSE event latency through nginx and HAProxy (docs/deploying's configurations) against the
 * direct path, on one example server: per exchange a `greet` call's first event (its
 * elicitation, mid-stream) and, after the client's answer, the result event on the same stream.
 * The paths take turns, one exchange each; a proxy's added latency is its figure minus the
 * direct path's in the same round (README.md, Method).
 */
import { Agent } from 'node:http';
import { legacyMessage } from '@edge-mcp/test-kit';
import {
  freePort,
  haproxyDocumented,
  nginxDocumented,
  type ReverseProxy,
  startHaproxy,
  startNginx,
} from '@edge-mcp/test-kit/node';
import type { Config } from '../config.ts';
import { type ExampleInstance, startExample } from '../lib/example.ts';
import { httpRequest } from '../lib/http.ts';
import { legacyPostHeaders, openSession } from '../lib/mcp.ts';
import { postStream } from '../lib/sse-stream.ts';
import { latencies, roundMedians, type Spread, spread } from '../lib/stats.ts';
import { LEGACY } from '../target-shapes.ts';
import type { ExampleTarget, ProxyKind } from '../targets-example.ts';
import { type Measured, measureRounds, type Stamp, spreadsOf, sum } from './measure.ts';

type Figure = 'firstP50Ms' | 'firstP99Ms' | 'answerP50Ms' | 'answerP99Ms';
const FIGURES: Figure[] = ['firstP50Ms', 'firstP99Ms', 'answerP50Ms', 'answerP99Ms'];
type PathFigures = ReturnType<typeof summary>;
export type ProxySseRow = ReturnType<typeof rowOf>;

const WARM_UP = 3;
/** As the server runs behind a proxy in docs/deploying.md. */
const SERVER_ENV = { MCP_TRUST_PROXY: '1', ALLOWED_HOSTS: 'mcp.example.test' };

interface Path {
  target: ExampleTarget;
  mcpUrl: string;
  session: string;
  agent: Agent;
  first: number[];
  answer: number[];
  failures: number;
}

const PROXIES: Record<ProxyKind, (port: number, upstream: number) => Promise<ReverseProxy>> = {
  nginx: (port, upstream) => startNginx(nginxDocumented(port, upstream), port),
  // The documented idle limits (60 s) as they are: an exchange takes milliseconds.
  haproxy: (port, upstream) => startHaproxy(haproxyDocumented(port, [upstream], '60s'), port),
};

/** One greet exchange on `path`: both round trips in ms. */
async function exchange(path: Path, id: number): Promise<{ first: number; answer: number }> {
  const headers = legacyPostHeaders(LEGACY, path.session);
  const call = legacyMessage('tools/call', { name: 'greet', arguments: {} }, id);
  const sent = performance.now();
  const stream = await postStream(path.mcpUrl, headers, JSON.stringify(call), path.agent);
  try {
    if (stream.status !== 200) throw new Error(`greet answered ${stream.status}`);
    const asked = await stream.next((m) => m.method === 'elicitation/create', 'the elicitation');
    const response = {
      jsonrpc: '2.0',
      id: asked.message.id,
      result: { action: 'accept', content: { name: 'bench' } },
    };
    const answered = performance.now();
    const posted = httpRequest(path.mcpUrl, {
      method: 'POST',
      headers,
      agent: path.agent,
      body: JSON.stringify(response),
    });
    const result = await stream.next((m) => m.id === id, 'the result');
    const text = result.message.result?.content?.[0]?.text;
    if (text !== 'Hello, bench!')
      throw new Error(`greet answered ${JSON.stringify(result.message)}`);
    const status = (await posted).status;
    if (status !== 202) throw new Error(`the elicitation answer got ${status}`);
    await stream.ended;
    return { first: asked.at - sent, answer: result.at - answered };
  } finally {
    stream.close();
  }
}

/** The paths' front ends: the example itself, or a proxy started in front of it. */
async function openPaths(
  targets: readonly ExampleTarget[],
  example: ExampleInstance,
  proxies: ReverseProxy[],
): Promise<Path[]> {
  const upstream = Number(new URL(example.url).port);
  const paths: Path[] = [];
  for (const target of targets) {
    let url = example.url;
    if (target.proxy) {
      const proxy = await PROXIES[target.proxy](await freePort(), upstream);
      proxies.push(proxy);
      url = proxy.url;
    }
    const mcpUrl = `${url}/mcp`;
    const session = await openSession(mcpUrl, LEGACY, { elicitation: {} });
    const agent = new Agent({ keepAlive: true, maxSockets: 2 });
    paths.push({ target, mcpUrl, session, agent, first: [], answer: [], failures: 0 });
  }
  return paths;
}

/** One round: `events` exchanges per path, interleaved, on one fresh example process. */
async function runProxySse(
  targets: readonly ExampleTarget[],
  events: number,
): Promise<Map<string, PathFigures>> {
  const example = await startExample(await freePort(), SERVER_ENV);
  const proxies: ReverseProxy[] = [];
  let paths: Path[] = [];
  try {
    paths = await openPaths(targets, example, proxies);
    let id = 1;
    for (const path of paths)
      for (let i = 0; i < WARM_UP; i++) await exchange(path, id++).catch(() => {});
    for (let i = 0; i < events; i++) {
      for (let k = 0; k < paths.length; k++) {
        const path = paths[(i + k) % paths.length]!;
        try {
          const { first, answer } = await exchange(path, id++);
          path.first.push(first);
          path.answer.push(answer);
        } catch {
          path.failures++;
        }
      }
    }
    return new Map(paths.map((path) => [path.target.id, summary(path, events)]));
  } finally {
    for (const path of paths) path.agent.destroy();
    await Promise.all(proxies.map((proxy) => proxy.stop()));
    await example.stop();
  }
}

function summary(path: Path, events: number) {
  const first = latencies(path.first);
  const answer = latencies(path.answer);
  return {
    events,
    failures: path.failures,
    firstP50Ms: first.p50Ms,
    firstP99Ms: first.p99Ms,
    answerP50Ms: answer.p50Ms,
    answerP99Ms: answer.p99Ms,
  };
}

export async function runProxySseRounds(
  targets: readonly ExampleTarget[],
  config: Config,
  log: (line: string) => void,
) {
  const runnable = targets.filter((target) => {
    const reason = target.unavailable?.();
    if (reason) log(`${target.id}: skipped, ${reason}`);
    return !reason;
  });
  const round = { id: 'node/edge-mcp-example', unavailable: undefined };
  const measured = await measureRounds(runnable.length > 0 ? [round] : [], config.rounds, log, {
    name: () => `proxy SSE (${runnable.map((t) => t.proxy ?? 'direct').join(', ')}):`,
    once: async () => ({ paths: await runProxySse(runnable, config.events) }),
    describe: (s) => `${[...s.paths].map(describePath).join('; ')}  (load ${s.load1.toFixed(2)})`,
  });
  const rounds = measured.get(round) ?? { samples: [], errors: [] };
  const rows = targets.map((target) => rowOf(target, rounds, config.events));
  for (const row of rows) {
    const base = rows.find((r) => r.id === row.baseline);
    if (base) row.added = addedTo(row, base);
  }
  return rows;
}

function describePath([id, p]: [string, PathFigures]): string {
  const ms = (a: number, b: number) => `${a.toFixed(2)}/${b.toFixed(2)} ms`;
  return `${id.split('/').at(-1)} first ${ms(p.firstP50Ms, p.firstP99Ms)}, answer ${ms(p.answerP50Ms, p.answerP99Ms)} (p50/p99), ${p.failures} failed`;
}

type RoundSample = Stamp & { paths: Map<string, PathFigures> };

function rowOf(target: ExampleTarget, rounds: Measured<RoundSample>, events: number) {
  const reason = target.unavailable?.();
  const samples = reason
    ? []
    : rounds.samples.flatMap(({ paths, ...at }) => {
        const sample = paths.get(target.id);
        return sample ? [{ ...at, ...sample }] : [];
      });
  return {
    id: target.id,
    label: target.label,
    baseline: target.baseline ?? null,
    samples,
    // Exchanges per round.
    events,
    failures: sum(samples, (s) => s.failures),
    ...spreadsOf(samples, FIGURES),
    // This path's figure − the direct path's, per round (null for the direct path).
    added: null as Record<Figure, Spread | null> | null,
    errors: reason ? [] : rounds.errors,
    ...(reason ? { skipped: reason } : {}),
  };
}

/** Each figure of `row` minus `base`'s, within a round. */
function addedTo(row: ProxySseRow, base: ProxySseRow): Record<Figure, Spread | null> {
  const added = {} as Record<Figure, Spread | null>;
  for (const figure of FIGURES) {
    const mine = roundMedians(row.samples, (s) => s[figure]);
    const theirs = roundMedians(base.samples, (s) => s[figure]);
    added[figure] = spread([...mine].map(([r, value]) => value - (theirs.get(r) ?? Number.NaN)));
  }
  return added;
}
