/**
 * The methods of the skills extension (SEP-2640), era-neutral as the other features are:
 * `skills/list`, `skills/get` and `resources/directory/read`. Skill files themselves are read with
 * `resources/read` (features.ts).
 *
 * @module
 */
import type { AuthInfo } from '../auth/auth-info.ts';
import { invalidParams } from '../errors.ts';
import { SKILLS } from '../protocol/constants.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { Endpoint } from './endpoint.ts';
import { listPage } from './lists.ts';
import type { Registry } from './registry.ts';
import { grants, requireScopes } from './resource-server.ts';
import type { SkillEntry } from './skill-entry.ts';

const SCHEME = 'skill://';

/** What these methods read of a method's context (`MethodContext`). */
interface SkillContext {
  readonly endpoint: Endpoint;
  readonly auth: AuthInfo | undefined;
}

/** `skills/list`: one page of skill entries, hidden ones left out as the other lists do. */
export async function listSkills(ctx: SkillContext, params: JsonObject): Promise<JsonObject> {
  const endpoint = ctx.endpoint;
  const auth = endpoint.resourceServer?.hideUnauthorized ? ctx.auth : undefined;
  const all = [...endpoint.registry.skills.values()].filter((skill) => grants(auth, skill.scopes));
  // An entry is whole on its page: the page is cut from skills, not from their files.
  const { items, nextCursor } = listPage(all, params.cursor, endpoint.pageSize);
  const skills = await Promise.all(items.map((skill) => skill.entry()));
  return nextCursor === undefined ? { skills } : { skills, nextCursor };
}

/** `skills/get`: the entry of the skill whose `SKILL.md` is `params.uri`; else -32602. */
export async function getSkill(ctx: SkillContext, params: JsonObject): Promise<JsonObject> {
  const uri = params.uri;
  if (typeof uri !== 'string') throw invalidParams('skills/get needs a uri');
  const skill = ctx.endpoint.registry.skills.get(uri);
  if (!skill) throw invalidParams(`No skill is served at ${uri}`, { uri });
  requireScopes(ctx.auth, skill.scopes);
  return { skill: await skill.entry() };
}

/**
 * `resources/directory/read`: the direct children of a folder of the skills served (a skill's
 * root, one of its subfolders, or a prefix folder above skills), files with their resource
 * metadata and subfolders as `inode/directory` resources; with `auth.hideUnauthorized`, without
 * the skills the caller may not use. A URI that is no such folder is -32602.
 */
export function readDirectory(ctx: SkillContext, params: JsonObject): JsonObject {
  const uri = params.uri;
  if (typeof uri !== 'string') throw invalidParams('resources/directory/read needs a uri');
  // Hidden as the lists hide: only with auth.hideUnauthorized (reading a file still needs scopes).
  const auth = ctx.endpoint.resourceServer?.hideUnauthorized ? ctx.auth : undefined;
  const children = childrenOf(ctx.endpoint.registry, uri, (skill) => grants(auth, skill.scopes));
  if (children.length === 0) throw invalidParams(`${uri} is not a directory resource`, { uri });
  const { items, nextCursor } = listPage(children, params.cursor, ctx.endpoint.pageSize);
  return nextCursor === undefined ? { resources: items } : { resources: items, nextCursor };
}

function childrenOf(
  registry: Registry,
  directory: string,
  visible: (skill: SkillEntry) => boolean,
): JsonObject[] {
  // Folder URIs carry no trailing slash, and the scheme's root is no folder.
  if (!directory.startsWith(SCHEME) || directory.length === SCHEME.length) return [];
  if (directory.endsWith('/')) return [];
  const base = `${directory}/`;
  const children = new Map<string, JsonObject>();
  for (const skill of registry.skills.values()) {
    if (!visible(skill)) continue;
    for (const file of skill.files) {
      if (!file.uri.startsWith(base)) continue;
      const rest = file.uri.slice(base.length);
      const slash = rest.indexOf('/');
      if (slash < 0) {
        children.set(file.uri, file.definition);
        continue;
      }
      const folder = `${base}${rest.slice(0, slash)}`;
      if (!children.has(folder))
        children.set(folder, {
          uri: folder,
          name: decodeURIComponent(rest.slice(0, slash)),
          mimeType: SKILLS.directoryMimeType,
        });
    }
  }
  return [...children.values()];
}
