/** Start-up ceiling on Deno and Bun: the runtime's own server answering the echo result. */
import { bareFetch } from '../entries/bare-result.ts';
import { serveWeb } from './env.ts';

serveWeb(bareFetch);
