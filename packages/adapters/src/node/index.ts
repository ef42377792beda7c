/**
 * Node adapter: serve a fetch handler with `node:http`.
 *
 * @module
 */
export { readSkillFolder, type SkillFolderOptions } from '../shared/skill-folder.ts';
export type { ErrorReporter, FetchHandler, RuntimeHandlerOptions } from '../shared/types.ts';
export { type NodeListener, type NodeListenerOptions, toNodeListener } from './listener.ts';
export { type RequestLogOptions, requestLog } from './request-log.ts';
export {
  type ListenInfo,
  NODE_SERVE_DEFAULTS,
  type NodeServer,
  RUNTIME_HANDLER_OPTIONS,
  type ServeOptions,
  serve,
} from './serve.ts';
