/** What every Node entry shares: its ports, its mode, and the side channel served on SIDE_PORT. */
import { serve } from '@edge-mcp/adapters/node';
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
  });
}

/** Serves the side channel; aborting `signal` closes it (so a graceful shutdown can exit). */
export async function serveSideChannel(side: SideChannel, signal?: AbortSignal): Promise<void> {
  await serve(side, { port: SIDE_PORT, hostname: HOST, shutdownSignals: false, signal });
  console.error(`ready ${PORT}`);
}
