/** Target: a bare `node:http` handler answering the echo result (the Node ceiling). */
import { createServer } from 'node:http';
import { bareNodeListener } from './bare-node-listener.ts';
import { bareResult } from './bare-result.ts';
import { HOST, nodeSideChannel, PORT, serveSideChannel } from './node-env.ts';

const server = createServer(bareNodeListener(bareResult));
await new Promise<void>((resolve) => server.listen(PORT, HOST, resolve));
await serveSideChannel(nodeSideChannel());
