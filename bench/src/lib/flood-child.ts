/**
 * The attacker's process, forked by src/lib/flood.ts: an open-loop echo flood from its own
 * loopback address (FLOOD_ADDRESS, another principal). In a process of its own so that its client
 * work does not run on the victim's event loop; it still shares the machine's cores with the
 * server and the victim, which is why its CPU time is read. Driven over IPC (see flood.ts).
 */
import type { FloodCommand, FloodReply } from './flood.ts';
import { echoCall } from './mcp.ts';
import { boundAgent, type OpenLoop, openLoop } from './open-loop.ts';

const url = process.env.FLOOD_URL ?? '';
const rate = Number(process.env.FLOOD_RATE);
const agent = boundAgent(
  process.env.FLOOD_ADDRESS ?? '127.0.0.2',
  Number(process.env.FLOOD_SOCKETS),
);
// Modern echo calls, as the victim sends them (the version is only read by legacy shapes).
const shape = echoCall('modern', '');
let run: OpenLoop | undefined;
let nextId = 1_000_000;

const reply = (message: FloodReply) => process.send?.(message);

process.on('message', async (command: FloodCommand) => {
  if (command.type === 'start' && !run) {
    run = openLoop({ url, shape, rate, firstId: nextId }, agent);
    reply({ type: 'started' });
  } else if (command.type === 'stop' && run) {
    const result = await run.stop();
    run = undefined;
    nextId += result.sent;
    reply({ type: 'stopped', sent: result.sent, statuses: result.statuses });
  } else if (command.type === 'exit') {
    agent.destroy();
    process.exit(0);
  }
});
reply({ type: 'ready' });
