/**
 * @module
 * The example server: what a user would copy to start. Every app (Node, Deno, Bun, Workers)
 * serves exactly this definition.
 */

export { createExampleApp } from './app.ts';
export { type EnvReader, exampleOptions } from './options.ts';
export { requestLogger, sessionLogger, taskRunLogger } from './request-log.ts';
export { createExampleServer } from './server.ts';
