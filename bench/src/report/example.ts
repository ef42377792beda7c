/**
 * The measures on the example server in the report: cross-instance cancel → abort (p99 at most
 * 50 ms on loopback) and SSE event latency through nginx and HAProxy against the direct path
 * (for context, no goal: the proxies' added latency is what it is told).
 */
import { failedCell, fixed, n, s, titled } from './format.ts';
import { failedProbes, goal } from './goal.ts';
import type { Section } from './types.ts';

export const crossCancelSection: Section = {
  goals: ({ crossCancel = [] }) =>
    crossCancel.map((row) =>
      goal(
        `Node: cross-instance cancel (B) → abort on A p99, on ${row.id.includes('cluster') ? 'a Redis Cluster' : 'one Redis'}`,
        'ms',
        '<=',
        50,
        row.p99Ms,
        `p50 ${fixed(row.p50Ms?.median, 2)} ms, max ${fixed(row.maxMs?.max, 2)} ms to A's request-log line (outcome cancelled, client-cancel); A's answer ended p50 ${fixed(row.endP50Ms?.median, 2)} ms; ${row.cancels} cancels per round`,
        row.skipped ? undefined : failedProbes(row, row.failures, 'cancels'),
      ),
    ),
  tables: ({ results }) =>
    titled(
      "**Cross-instance cancel → abort** (the example server twice on one `redis-server`, or on a Redis Cluster of 3 primaries and 3 replicas: a legacy `sleep` on A, `notifications/cancelled` for it POSTed to B; from the cancel sent to A's request-log line saying the handler was cancelled, and to the end of A's answer to the call; percentiles per round)",
      results.crossCancel,
      [
        ['target', (r) => r.id],
        ['cancels/round', (r) => String(r.cancels), true],
        ['failed', failedCell, true],
        ['abort p50 ms', (r) => s(r.p50Ms, 2), true],
        ['abort p99 ms', (r) => s(r.p99Ms, 2), true],
        ['abort max ms', (r) => s(r.maxMs, 2), true],
        ['answer ended p50 ms', (r) => s(r.endP50Ms, 2), true],
        ['answer ended p99 ms', (r) => s(r.endP99Ms, 2), true],
      ],
    ),
};

const signed = (value: number | undefined, digits: number) =>
  value === undefined || !Number.isFinite(value)
    ? 'n/a'
    : `${value >= 0 ? '+' : '−'}${n(Math.abs(value), digits)}`;

export const proxySseSection: Section = {
  goals: () => [],
  tables: ({ results }) =>
    titled(
      '**SSE event latency through reverse proxies** (the example server, direct and behind nginx and HAProxy as docs/deploying configures them, on loopback; a legacy `greet` per exchange: the call POSTed → its first event, the `elicitation/create` on the still open stream; the client\'s answer POSTed → the result event on that stream; round trips, percentiles per round; "+" is the added latency against direct, per round; no goal)',
      results.proxySse,
      [
        ['path', (r) => r.label],
        ['exchanges/round', (r) => String(r.events), true],
        ['failed', failedCell, true],
        ['first event p50 ms', (r) => s(r.firstP50Ms, 2), true],
        ['p99 ms', (r) => s(r.firstP99Ms, 2), true],
        ['+ p50 ms', (r) => (r.added ? signed(r.added.firstP50Ms?.median, 2) : ''), true],
        ['answer → event p50 ms', (r) => s(r.answerP50Ms, 2), true],
        ['p99 ms', (r) => s(r.answerP99Ms, 2), true],
        ['+ p50 ms', (r) => (r.added ? signed(r.added.answerP50Ms?.median, 2) : ''), true],
      ],
    ),
};
