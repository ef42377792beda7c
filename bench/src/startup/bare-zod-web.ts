/** The floor of a zod server on Deno and Bun: the runtime's server answering the echo after zod. */
import { bareZodFetch } from '../entries/bare-zod.ts';
import { serveWeb } from './env.ts';

serveWeb(bareZodFetch);
