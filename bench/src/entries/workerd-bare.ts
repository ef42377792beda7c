/**
 * Target: a bare Worker answering the echo result (the workerd ceiling), under `wrangler dev`
 * (bench/wrangler.jsonc). `/health` tells the bench it is ready.
 */
import { bareFetch } from './bare-result.ts';

export default {
  fetch(request: Request): Response | Promise<Response> {
    if (new URL(request.url).pathname === '/health') return new Response('ok');
    return bareFetch(request);
  },
};
