/**
 * A skill's folder on disk as the files `server.skill()` takes (the skills extension): every
 * regular file below `dir` by its `/`-separated path. Node, Deno and Bun all read it through
 * `node:fs/promises`, imported only when called, so the Deno and Bun entries load no `node:`
 * module until then. workerd has no disk: bundle the files as strings there.
 *
 * @module
 */

/** The options of `readSkillFolder`. */
export interface SkillFolderOptions {
  /**
   * Whether files and folders whose name begins with `.` (`.git`, `.DS_Store`) are read too.
   * @default false
   */
  dotFiles?: boolean;
}

/**
 * Reads the skill in folder `dir` (its `SKILL.md` and every file below it) for
 * `server.skill(files)`, in path order. Symbolic links and other non-regular entries are left
 * out; the core checks the skill against the extension's rules and limits when it is registered.
 *
 * @example
 * ```ts
 * server.skill(await readSkillFolder('./skills/pdf-processing'));
 * ```
 */
export async function readSkillFolder(
  dir: string,
  options: SkillFolderOptions = {},
): Promise<Record<string, Uint8Array>> {
  const { readdir, readFile } = await import('node:fs/promises');
  const files: Record<string, Uint8Array> = {};
  const walk = async (folder: string, prefix: string): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (!options.dotFiles && entry.name.startsWith('.')) continue;
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory()) await walk(path, `${prefix}${entry.name}/`);
      else if (entry.isFile())
        files[`${prefix}${entry.name}`] = new Uint8Array(await readFile(path));
    }
  };
  await walk(dir.replace(/[\\/]+$/, '') || dir, '');
  return files;
}
