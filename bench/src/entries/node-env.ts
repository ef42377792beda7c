/** What every Node entry shares: its ports, its mode, and the side channel served on SIDE_PORT. */
import { serve } from '@edge-mcp/adapters/node';
import { SessionManager } from '@edge-mcp/core/sessions';
import { expiryLagSampler } from './expiry-lag.ts';
import { createProfiler } from './node-profiler.ts';
import { createSideChannel, type SideChannel } from './side-channel.ts';

export const PORT = Number(process.env.PORT ?? 8787);
export const SIDE_PORT = Number(process.env.SIDE_PORT ?? 8788);
export const MODE = process.env.MODE ?? '';
export const HOST = '127.0.0.1';

export function nodeSideChannel(stats?: () => unknown): SideChannel {
  return createSideChannel({
    memory: () => process.memoryUsage(),
    gc: globalThis.gc,
    stats,
    profiler: createProfiler(),
    lag: stats && expiryLagSampler(() => (stats() as { reaped?: number } | null)?.reaped ?? 0),
  });
}

/** Serves the side channel; aborting `signal` closes it (so a graceful shutdown can exit). */
export async function serveSideChannel(side: SideChannel, signal?: AbortSignal): Promise<void> {
  await serve(side, { port: SIDE_PORT, hostname: HOST, shutdownSignals: false, signal });
  console.error(`ready ${PORT}`);
}

/**
 * The session manager of the Node targets. MAX_SESSIONS raises both caps: every session of the
 * 10,000-session measures comes from one address, which the per-principal quota (1,000 by
 * default) would otherwise hold to its newest 1,000, evicting the rest as it goes.
 * SESSION_IDLE_MS sets the idle timeout (the idle-sessions measure waits for its sweep).
 */
export function benchSessions(): SessionManager {
  const max = Number(process.env.MAX_SESSIONS ?? 10_000);
  const idle = process.env.SESSION_IDLE_MS;
  return new SessionManager({
    ...(idle ? { idleTimeoutMs: Number(idle) } : {}),
    maxSessions: max,
    maxSessionsPerPrincipal: process.env.MAX_SESSIONS === undefined ? undefined : max,
  });
}
