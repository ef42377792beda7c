import { invalidParams, methodNotFound } from '../errors.ts';
import { META } from '../protocol/constants.ts';
import {
  isObject,
  type JsonObject,
  notificationMessage,
  resultMessage,
} from '../protocol/jsonrpc.ts';
import type { ListKind } from '../server/registry.ts';
import { sees } from '../server/visibility.ts';
import { TaskEngine } from '../tasks/engine.ts';
import type { ModernContext } from './context.ts';
import { declaresTasks, detailedTask, missingTasksExtension } from './tasks.ts';

const LIST_FLAGS: Record<
  ListKind,
  'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged'
> = {
  tools: 'toolsListChanged',
  prompts: 'promptsListChanged',
  resources: 'resourcesListChanged',
};

/**
 * `subscriptions/listen`: an SSE stream that starts with the acknowledgement (the honoured subset
 * of the filter), then carries only the notification types asked for, each tagged with the
 * subscription id (the listen request's id). It ends when the client leaves, or on shutdown with
 * the completing result. Resolves when the stream is over.
 */
export async function listen(ctx: ModernContext, params: JsonObject): Promise<undefined> {
  const registry = ctx.endpoint.registry;
  const filter = params.notifications;
  if (filter !== undefined && !isObject(filter))
    throw invalidParams('notifications must be an object');
  const caps = registry.capabilities();
  if (!caps.tools && !caps.prompts && !caps.resources) throw methodNotFound('subscriptions/listen');
  const wanted: JsonObject = isObject(filter) ? filter : {};
  const honoured: JsonObject = {};
  const lists = honouredLists(caps, wanted, honoured);
  const uris = subscribedUris(ctx, caps.resources ? wanted.resourceSubscriptions : undefined);
  if (uris) honoured.resourceSubscriptions = [...uris];

  const tasks = await watchedTasks(ctx, wanted.taskIds);
  if (tasks) honoured.taskIds = [...tasks];

  const exchange = ctx.exchange;
  const tag = { [META.subscriptionId]: exchange.id };
  exchange.farewell = resultMessage(exchange.id, { resultType: 'complete', _meta: tag });
  const stream = exchange.stream();
  stream.send(
    notificationMessage('notifications/subscriptions/acknowledged', {
      notifications: honoured,
      _meta: tag,
    }),
  );

  const auth = ctx.auth;
  const offLists = registry.onListChanged((kind, _origin, visible) => {
    if (lists.has(kind) && sees(visible, auth))
      stream.send(notificationMessage(`notifications/${kind}/list_changed`, { _meta: tag }));
  });
  const offUpdates = registry.onResourceUpdated((uri) => {
    if (uris?.has(uri))
      stream.send(notificationMessage('notifications/resources/updated', { uri, _meta: tag }));
  });
  const offTasks =
    tasks &&
    ctx.endpoint.tasks?.onChange((record) => {
      if (tasks.has(record.id))
        stream.send(
          notificationMessage('notifications/tasks', { ...detailedTask(record), _meta: tag }),
        );
    });
  const listens = ctx.endpoint.listens;
  listens.add(exchange);
  try {
    const signal = exchange.signal;
    if (!signal.aborted)
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
  } finally {
    listens.delete(exchange);
    offLists();
    offUpdates();
    offTasks?.();
  }
  return undefined;
}

/** The lists whose changes a listen stream asked for and the server announces, marked in `honoured`. */
function honouredLists(
  caps: Partial<Record<ListKind, unknown>>,
  wanted: JsonObject,
  honoured: JsonObject,
): Set<ListKind> {
  const lists = new Set<ListKind>();
  for (const kind of ['tools', 'prompts', 'resources'] as const) {
    if (caps[kind] && wanted[LIST_FLAGS[kind]] === true) {
      honoured[LIST_FLAGS[kind]] = true;
      lists.add(kind);
    }
  }
  return lists;
}

/**
 * The `taskIds` a listen stream may follow: the caller's own tasks (another's, an unknown or an
 * expired id is left out of the acknowledged subset, which tells no more than `tasks/get` does).
 */
async function watchedTasks(ctx: ModernContext, asked: unknown): Promise<Set<string> | undefined> {
  const engine = ctx.endpoint.tasks;
  if (!Array.isArray(asked) || !engine || !ctx.endpoint.registry.tasks) return undefined;
  if (!declaresTasks(ctx)) throw missingTasksExtension('Following tasks');
  const { maxSubscriptions } = ctx.endpoint.limits;
  if (asked.length > maxSubscriptions)
    throw invalidParams(`A listen stream may follow ${maxSubscriptions} tasks at most`);
  const binding = TaskEngine.binding(ctx.auth, undefined, ctx.client);
  const ids = new Set<string>();
  for (const id of asked)
    if (typeof id === 'string' && (await engine.get(binding, id)) !== undefined) ids.add(id);
  return ids;
}

/** The resource URIs a listen stream asks to follow, within the limits; `undefined` for none asked. */
function subscribedUris(ctx: ModernContext, asked: unknown): Set<string> | undefined {
  if (!Array.isArray(asked)) return undefined;
  const { maxSubscriptions, maxUriLength } = ctx.endpoint.limits;
  if (asked.length > maxSubscriptions)
    throw invalidParams(`A listen stream may hold ${maxSubscriptions} subscriptions at most`);
  const uris = new Set<string>();
  for (const uri of asked) {
    if (typeof uri !== 'string') continue;
    if (uri.length > maxUriLength)
      throw invalidParams(`A subscribed URI is longer than ${maxUriLength} characters`);
    uris.add(uri);
  }
  return uris;
}
