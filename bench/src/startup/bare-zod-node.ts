/** The floor of a zod server on Node: `node:http` answering the echo after zod (src/entries/bare-zod.ts). */
import { createServer } from 'node:http';
import { bareNodeListener } from '../entries/bare-node-listener.ts';
import { bareZodResult } from '../entries/bare-zod.ts';
import { HOSTNAME, port } from './env.ts';

createServer(bareNodeListener(bareZodResult)).listen(port(), HOSTNAME);
