/** The targets, judged from the numbers of one run. */
import type { DisconnectRow } from '../measures/disconnect.ts';
import type { SessionRow } from '../measures/sessions.ts';
import type { ShutdownRow } from '../measures/shutdown.ts';
import type { ThroughputRow } from '../measures/throughput.ts';

export interface Goal {
  label: string;
  value: number | null;
  unit: string;
  comparison: '>=' | '<=';
  threshold: number;
  /** null when the measure did not run or failed. */
  met: boolean | null;
  detail: string;
}

export interface Results {
  throughput: ThroughputRow[];
  sessions: SessionRow[];
  disconnect: DisconnectRow[];
  shutdown: ShutdownRow | null;
}

function goal(
  label: string,
  value: number | null | undefined,
  unit: string,
  comparison: '>=' | '<=',
  threshold: number,
  detail: string,
): Goal {
  const known = value !== null && value !== undefined && Number.isFinite(value);
  return {
    label,
    value: known ? value : null,
    unit,
    comparison,
    threshold,
    met: known ? (comparison === '>=' ? value >= threshold : value <= threshold) : null,
    detail,
  };
}

const fixed = (value: number | undefined, digits = 0) =>
  value === undefined ? 'n/a' : value.toFixed(digits);

export function judge(results: Results): Goal[] {
  const rps = (id: string) => results.throughput.find((row) => row.id === id && !row.error)?.rps;
  const modern = results.throughput.find((row) => row.id === 'node/edge-mcp/modern');
  const edgeLegacy = rps('node/edge-mcp/legacy-session');
  const v1Legacy = rps('node/sdk-v1/legacy-session');
  const edgeSessions = results.sessions.find((row) => row.id === 'node/edge-mcp' && !row.error);
  const v1Sessions = results.sessions.find((row) => row.id === 'node/sdk-v1' && !row.error);
  const goals = [
    goal(
      'modern tools/call echo on Node vs bare node:http',
      modern?.ratioToBare,
      '×',
      '>=',
      0.7,
      `${fixed(modern?.rps)} vs ${fixed(rps('node/bare'))} req/s`,
    ),
    goal(
      'legacy tools/call, one session, vs SDK v1 one session',
      edgeLegacy && v1Legacy ? edgeLegacy / v1Legacy : null,
      '×',
      '>=',
      5,
      `${fixed(edgeLegacy)} vs ${fixed(v1Legacy)} req/s`,
    ),
    goal(
      'heap per idle legacy session',
      edgeSessions?.heapBytesPerSession,
      'B',
      '<=',
      2048,
      `heapUsed delta over ${edgeSessions?.sessions ?? 'n/a'} sessions, after GC`,
    ),
    goal(
      'RSS per idle legacy session',
      edgeSessions?.rssBytesPerSession,
      'B',
      '<=',
      2048,
      `RSS delta over ${edgeSessions?.sessions ?? 'n/a'} sessions after as many as a warm-up, after GC (warm-up batch: ${fixed(edgeSessions?.warmUpRssBytesPerSession)} B)`,
    ),
    goal(
      'sessions created per second vs SDK v1',
      edgeSessions && v1Sessions ? edgeSessions.initPerS / v1Sessions.initPerS : null,
      '×',
      '>=',
      15,
      `${fixed(edgeSessions?.initPerS)} vs ${fixed(v1Sessions?.initPerS)} initialize/s`,
    ),
  ];
  for (const runtime of ['node', 'deno', 'bun']) {
    const row = results.disconnect.find((r) => r.runtime === runtime);
    goals.push(
      goal(
        `disconnect → abort p99 on ${runtime}`,
        row && row.failures === 0 ? row.p99Ms : null,
        'ms',
        '<=',
        10,
        row
          ? `p50 ${fixed(row.p50Ms, 2)} ms, max ${fixed(row.maxMs, 2)} ms, ${row.failures} failed of ${row.drops}`
          : 'not run',
      ),
    );
  }
  const down = results.shutdown;
  goals.push(
    goal(
      'shutdown with sessions + in-flight calls, to exit',
      down && down.exitCode === 0 ? down.exitMs : null,
      'ms',
      '<=',
      200,
      down
        ? `${down.sessions} sessions, ${down.inFlight} in flight, exit code ${down.exitCode}`
        : 'not run',
    ),
  );
  return goals;
}
