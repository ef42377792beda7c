/**
 * The attacks of the abuse mode (issue 22's findings, and the earlier ones), each from the
 * attacker's address and bounded in count: what each sent and how the server answered.
 */
import { modern } from '@edge-mcp/test-kit';
import { ATTACKER, holdStream, pool, post, refusedUpload, slowBody } from './wire.ts';

const LEGACY = '2025-11-25';

/** How many of each attack a run makes (`short` in `pnpm test`, `long` in `pnpm stress`). */
export interface AbuseScale {
  /** Dropped 2025-11-25 calls with a 4 MB argument (the remote OOM of finding 1). */
  droppedCalls: number;
  /** 2026-07-28 calls with a 4 MB argument, dropped after their first event. */
  modernCalls: number;
  /** Uploads refused before they were read, written on after the answer (finding 4). */
  refusedUploads: number;
  /** `initialize` calls of one client (finding 3). */
  initializes: number;
  /** Sessions each holding a GET stream open (finding 3). */
  heldStreams: number;
  /** Connections sending a body one byte at a time, held through the run. */
  slowBodies: number;
  /** Requests with a 64 KiB bearer token (the big tokens of the earlier rounds). */
  bigTokens: number;
  /** `resources/read`s of long URIs full of near-matches of the note template. */
  templateReads: number;
  /** Task calls one client makes past its task quota (after filling the quota). */
  tasksPastQuota: number;
}

export const SCALES: Readonly<Record<'short' | 'long', AbuseScale>> = {
  short: {
    droppedCalls: 40,
    modernCalls: 20,
    refusedUploads: 2,
    initializes: 300,
    heldStreams: 50,
    slowBodies: 20,
    bigTokens: 20,
    templateReads: 20,
    tasksPastQuota: 5,
  },
  long: {
    droppedCalls: 500,
    modernCalls: 200,
    refusedUploads: 10,
    initializes: 12_000,
    heldStreams: 500,
    slowBodies: 200,
    bigTokens: 500,
    templateReads: 500,
    tasksPastQuota: 100,
  },
};

/** Statuses an attack got, by status (0: the connection failed). */
export type Tally = Record<string, number>;

function tally(statuses: number[]): Tally {
  const counts: Tally = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

// 4 MB, under the 4 MiB body limit with its envelope: the calls are read and run.
const JUNK = 'x'.repeat(4_000_000);

/** A 2025-11-25 `initialize` from a client named `name`. */
function initializeBody(name: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name, version: '1' } },
  });
}

/** A legacy session of the attacker's: `initialize` and `notifications/initialized`. */
export async function openSession(mcpUrl: string, from = ATTACKER): Promise<string | undefined> {
  const opened = await post(mcpUrl, initializeBody('abuse'), { from });
  if (!opened.session) return undefined;
  await post(mcpUrl, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), {
    from,
    headers: sessionHeaders(opened.session),
  });
  return opened.session;
}

export function sessionHeaders(session: string): Record<string, string> {
  return { 'mcp-session-id': session, 'mcp-protocol-version': LEGACY };
}

/**
 * The heavy attacks come from many addresses (127.0.1.1–32), so the budgets per client do not
 * stop them all and the handler's own (`maxInFlightBytes`) is what the heap is left to.
 */
export const SWARM = Array.from({ length: 32 }, (_, i) => `127.0.1.${i + 1}`);

/**
 * 2025-11-25 `sleep` calls with a 4 MB argument and a progress token, dropped after the priming
 * event: each is kept for its disconnect grace (30 s) with no connection.
 */
export async function droppedLegacyCalls(mcpUrl: string, count: number): Promise<Tally> {
  const sessions = await Promise.all(SWARM.map((from) => openSession(mcpUrl, from)));
  const statuses = await pool(count, 8, (i) => {
    const session = sessions[i % SWARM.length];
    if (!session) return Promise.resolve(0);
    return post(
      mcpUrl,
      JSON.stringify({
        jsonrpc: '2.0',
        id: i + 10,
        method: 'tools/call',
        params: {
          name: 'sleep',
          arguments: { ms: 60_000, junk: JUNK },
          _meta: { progressToken: i },
        },
      }),
      { from: SWARM[i % SWARM.length], headers: sessionHeaders(session), drop: 'first-chunk' },
    ).then((sent) => sent.status);
  });
  return tally(statuses);
}

/** 2026-07-28 `sleep` calls with a 4 MB argument, dropped after their first event. */
export async function droppedModernCalls(mcpUrl: string, count: number): Promise<Tally> {
  const statuses = await pool(count, 8, (i) => {
    const init = modern(
      'tools/call',
      { name: 'sleep', arguments: { ms: 60_000, junk: JUNK } },
      { meta: { progressToken: 'p' } },
    );
    return post(mcpUrl, String(init.body), {
      from: SWARM[i % SWARM.length],
      headers: init.headers as Record<string, string>,
      drop: 'first-chunk',
    }).then((sent) => sent.status);
  });
  return tally(statuses);
}

export const UPLOAD_BYTES = 120 * 1024 * 1024;

/**
 * Refused uploads of 120 MiB (a 415 before the body is read; under Bun's own 128 MiB limit, so the
 * adapter's handling is what is measured): how much the server took.
 */
export async function refusedUploads(
  mcpUrl: string,
  count: number,
): Promise<{ statuses: string[]; maxWritten: number }> {
  const results = await pool(count, 2, () =>
    refusedUpload(mcpUrl, 'Content-Type: text/plain', UPLOAD_BYTES),
  );
  return {
    statuses: results.map((r) => r.status),
    maxWritten: Math.max(...results.map((r) => r.written)),
  };
}

/** `initialize` after `initialize` from one client. */
export async function sessionFlood(mcpUrl: string, count: number): Promise<Tally> {
  const statuses = await pool(count, 16, () =>
    post(mcpUrl, initializeBody('flood'), { from: ATTACKER }).then((sent) => sent.status),
  );
  return tally(statuses);
}

/** Sessions each holding a GET stream open; the closers drop them all. */
export async function heldStreams(mcpUrl: string, count: number): Promise<Array<() => void>> {
  return pool(count, 16, async () => {
    const session = await openSession(mcpUrl);
    return session ? holdStream(mcpUrl, session) : () => {};
  });
}

/** Connections whose body never arrives; the closers drop them. */
export function slowBodies(mcpUrl: string, count: number): Array<() => void> {
  return Array.from({ length: count }, () => slowBody(mcpUrl, 200));
}

/**
 * 2026-07-28 requests carrying a 64 KiB bearer token: past every runtime's header limit, so the
 * server answers 431 (or closes) before anything is parsed or kept.
 */
export async function bigTokens(mcpUrl: string, count: number): Promise<Tally> {
  const token = 'e'.repeat(64 * 1024);
  const init = modern('tools/list');
  const statuses = await pool(count, 4, () =>
    post(mcpUrl, String(init.body), {
      from: ATTACKER,
      headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
    }).then((sent) => sent.status),
  );
  return tally(statuses);
}

/**
 * `resources/read` of 256 KiB URIs that nearly match the example's `notes://{id}` template (a
 * matcher that backtracks spends seconds per read on them), in a 2025-11-25 session so the URI
 * travels in the body only (2026-07-28 mirrors it in a header, which the header limit refuses):
 * the statuses, and the slowest answer, which says whether one read could hold the event loop.
 */
export async function templateReads(
  mcpUrl: string,
  count: number,
): Promise<{ statuses: Tally; slowestMs: number; refusal?: string }> {
  const uris = [
    `notes://${'a/'.repeat(128 * 1024)}`,
    `notes://${'%2'.repeat(85 * 1024)}`,
    `notes:/${'/{'.repeat(128 * 1024)}`,
  ];
  // From an address of its own: the attacker's slow bodies hold its byte budget through the run
  // (rightly), which would refuse these reads before any template is matched.
  const from = '127.0.0.5';
  const session = await openSession(mcpUrl, from);
  if (!session) return { statuses: { 0: count }, slowestMs: 0 };
  let slowestMs = 0;
  let refusal: string | undefined;
  const statuses = await pool(count, 4, async (i) => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: i + 2,
      method: 'resources/read',
      params: { uri: uris[i % uris.length] },
    });
    const started = performance.now();
    const sent = await post(mcpUrl, body, { from, headers: sessionHeaders(session) });
    slowestMs = Math.max(slowestMs, performance.now() - started);
    if (sent.status !== 200) refusal ??= `${sent.status} ${sent.text?.slice(0, 300)}`;
    return sent.status;
  });
  return {
    statuses: tally(statuses),
    slowestMs: Math.round(slowestMs),
    ...(refusal ? { refusal } : {}),
  };
}
