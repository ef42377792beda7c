/** Start-up ceiling on Node: a bare `node:http` handler answering the echo result. */
import { createServer } from 'node:http';
import { bareNodeListener } from '../entries/bare-node-listener.ts';
import { bareResult } from '../entries/bare-result.ts';
import { HOSTNAME, port } from './env.ts';

createServer(bareNodeListener(bareResult)).listen(port(), HOSTNAME);
